import Foundation
import Observation
import Testing
@testable import Chronicle   // only for the test's own bookkeeping (Locked)

// The examples of the Documentation.docc articles, compiled and run.

// WorkingWithCollections: generic code and type erasure.
func names<C: LiveCollection>(_ dogs: C) -> [String] where C.Element == Dog {
    dogs.map(\.name)
}

final class DogListModel {
    let dogs: AnyLiveCollection<Dog>
    init<C: LiveCollection>(_ dogs: C) where C.Element == Dog {
        self.dogs = AnyLiveCollection(dogs)
    }
}

@Suite("Documentation examples")
struct DocumentationExampleTests {
    @Test func gettingStarted() async throws {
        let store = try Store(configuration: .inMemory())
        let person = Person()
        person.firstName = "Jason"
        try store.write(label: "hire Jason") {
            store.add(person)
        }
        try await store.asyncWrite {
            person.lastName = "Bourne"
        }
        let bournes = store.objects(Person.self).filter(#Predicate { $0.lastName == "Bourne" }).sorted(by: \.firstName)
        #expect(bournes.map(\.firstName) == ["Jason"])
    }

    @Test func workingWithCollections() throws {
        let store = try Store(configuration: .inMemory())
        let rex = Dog()
        rex.name = "Rex"
        let person = Employee()
        try store.write { store.add(person); store.add(rex) }
        let heavy = store.objects(Dog.self).filter(#Predicate { $0.weight > 30 })
        #expect(heavy.count == 0)
        try store.write { rex.weight = 40 }
        #expect(heavy.count == 1)
        let byName = store.objects(Dog.self).sorted(by: \.name)
        #expect(byName.first?.name == "Rex")
        try store.write { person.dogs.append(rex) }
        #expect(rex.person.first?._id == person._id)
        #expect(names(store.objects(Dog.self)) == ["Rex"] && names(person.dogs) == ["Rex"])
        #expect(DogListModel(person.dogs).dogs.count == 1)
    }

    @Test func classProjections() throws {
        let (store, _) = try ProjectionTests.seeded()
        let people = store.objects(PersonProjection.self)
        let person = people.first(where: { $0.firstName == "Jason" })!
        try store.write {
            person.firstName = "David"
        }
        #expect(people.filter(#Predicate { $0.homeCity == "Oslo" }).map(\.firstName) == ["David"])
        #expect(people.sorted(by: \.homeCity).count == 3)
    }

    @Test func observingChanges() async throws {
        let (store, jason) = try ProjectionTests.seeded()
        var stream = jason.changes(keyPaths: [\.firstName]).makeAsyncIterator()
        try store.write { jason.firstName = "Jay" }
        var lines: [String] = []
        if let change = await stream.next() {
            switch change {
            case .change(_, let properties):
                for property in properties {
                    lines.append("\(property.name): \(property.oldValue!) → \(property.newValue!)")
                }
            case .deleted:
                lines.append("gone")
            case .error:
                break
            }
        }
        #expect(lines == ["firstName: Jason → Jay"])

        let profile = Observed(PersonProjection(projecting: jason))
        let fired = Locked(false)
        withObservationTracking { _ = profile.firstName } onChange: { fired.withLock { $0 = true } }
        try store.write { jason.firstName = "J" }
        #expect(await ObservationTests.eventually { fired.withLock { $0 } })
    }
}
