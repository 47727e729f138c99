import Foundation
import Testing
@testable import Chronicle

/// Issue 27: `init(value:)`, `detached()` and `object.store`.
@Suite("Object copies")
struct ObjectCopyTests {
    static func employee(in store: Store) throws -> (Employee, Dog) {
        let ann = Employee(), rex = Dog()
        ann.firstName = "Ann"
        ann.businessUnit = .sales
        rex.name = "Rex"
        ann.dogs.append(rex)
        try store.write { store.add(ann) }
        return (ann, rex)
    }

    @Test func initValueCopiesPersistedValuesAndLinksToTheSameObjects() throws {
        let store = try scratchStore()
        let (ann, rex) = try Self.employee(in: store)
        let copy = Employee(value: ann)
        #expect(!copy.isManaged && copy.store == nil)
        #expect(copy._id == ann._id && copy.firstName == "Ann" && copy.businessUnit == .sales)
        #expect(copy.dogs.count == 1 && copy.dogs[0] == rex && copy.dogs[0].isManaged)
        // An unmanaged copy changes without a write, and the original does not.
        copy.firstName = "Bo"
        #expect(ann.firstName == "Ann")
    }

    @Test func embeddedObjectsAreCopiedWithTheirParent() throws {
        let store = try scratchStore()
        let person = Person()
        person.address = Address()
        person.address?.city = "Oslo"
        try store.write { store.add(person) }
        let copy = Person(value: person)
        #expect(copy.address?.city == "Oslo")
        #expect(copy.address?.isManaged == false)
        try store.write { store.add(copy) }
        #expect(store.objects(Person.self).map { $0.address?.city } == ["Oslo", "Oslo"])
    }

    @Test func aCopyMovesAnObjectToAnotherStore() throws {
        let a = try scratchStore("copy-a"), b = try scratchStore("copy-b")
        let counter = Counter()
        counter.id = 7
        counter.value = 3
        try a.write { a.add(counter) }
        #expect(counter.store === a)
        let copy = Counter(value: counter)
        try b.write { b.add(copy) }
        #expect(copy.store === b)
        #expect(b.object(ofType: Counter.self, forPrimaryKey: 7)?.value == 3)
    }

    @Test func detachedCopiesTheWholeGraphOnce() throws {
        let a = try scratchStore("detached-a"), b = try scratchStore("detached-b")
        let ann = Person(), bo = Person()
        ann.firstName = "Ann"
        bo.firstName = "Bo"
        ann.friends.append(bo)
        bo.friends.append(ann)          // a cycle
        try a.write { a.add(ann) }
        let graph = ann.detached()
        #expect(!graph.isManaged && !graph.friends[0].isManaged)
        #expect(graph.friends[0].friends[0] === graph)
        try b.write { b.add(graph) }
        #expect(Set(b.objects(Person.self).map(\.firstName)) == ["Ann", "Bo"])
        #expect(b.objects(Person.self).count == 2)
    }

    @Test func initValueOfAnotherClassStops() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Counter(value: Dog())
        }.map { result in
            #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("Counter(value:) copies a Counter, not a Dog"))
        }
    }
}
