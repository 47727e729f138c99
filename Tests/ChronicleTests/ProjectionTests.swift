import ChronicleTesting
import Foundation
import Testing
@testable import Chronicle

final class CityProjection: Projection<Address> {
    @Projected(\Address.city) var town
}
extension CityProjection: @unchecked Sendable {}

/// Issue 5: class projections, as the seeds 000_/004_ (and 001_'s Profile) describe them.
@Suite("Class projections")
struct ProjectionTests {
    /// The seeds' data set: Jason with an address in Oslo and two friends.
    static func seeded() throws -> (Store, Person) {
        let store = try scratchStore()
        let jason = Person()
        jason.firstName = "Jason"
        jason.lastName = "bourne"
        jason.address = Address()
        jason.address?.city = "Oslo"
        for name in ["Marie", "Nikita"] {
            let friend = Person()
            friend.firstName = name
            jason.friends.append(friend)
        }
        try store.write { store.add(jason) }
        return (store, jason)
    }

    // 004_: "Retrieve all class projections of the given type `PersonProjection`"
    @Test func seedQueryForAClassProjection() throws {
        let (store, _) = try Self.seeded()
        let people = store.objects(PersonProjection.self)
        #expect(people.count == 3)
        #expect(Set(people.map(\.firstName)) == ["Jason", "Marie", "Nikita"])
    }

    // 004_: "Update class projection property in a write transaction"
    @Test func seedChangeAClassProjectionPropertyInAWrite() throws {
        let (store, jason) = try Self.seeded()
        let person = store.objects(PersonProjection.self).first(where: { $0.firstName == "Jason" })!
        try store.write {
            person.firstName = "David"
        }
        #expect(jason.firstName == "David")
        // One property event, on the base object.
        #expect(try store.lastCommitEvents() == [#"set Person#1.firstName: "Jason" → "David""#])
    }

    @Test func everyFormReadsManagedUnmanagedAndFrozenObjects() throws {
        let (store, jason) = try Self.seeded()
        let unmanaged = Person()
        unmanaged.firstName = "Lone"
        unmanaged.lastName = "wolf"
        unmanaged.address = Address()
        unmanaged.address?.city = "Bergen"
        unmanaged.friends.append(Person())
        let frozen = jason.freeze()
        for (person, first, city, friends) in [(jason, "Jason", "Oslo", ["Marie", "Nikita"]),
                                               (unmanaged, "Lone", "Bergen", [""]),
                                               (frozen, "Jason", "Oslo", ["Marie", "Nikita"])] {
            let projection = PersonProjection(projecting: person)
            #expect(projection.firstName == first)                 // passthrough
            #expect(projection.homeCity == city)                   // rename + key-path resolution
            #expect(Array(projection.firstFriendsName) == friends) // collection mapping
            #expect(projection.rootObject === person)
        }
        let profile = Profile(projecting: store.objects(Employee.self).first ?? {
            let e = Employee()
            e.lastName = "smith"
            return e
        }())
        #expect(profile.lastNameInitial == "S")                    // transformation
        try store.write { jason.firstName = "Changed" }
        #expect(PersonProjection(projecting: frozen).firstName == "Jason", "a frozen base never changes")
    }

    @Test func projectionsOverEmbeddedObjects() throws {
        let (_, jason) = try Self.seeded()
        let city = CityProjection(projecting: jason.address!)
        #expect(city.town == "Oslo")
    }

    @Test func exclusionHidesUnprojectedProperties() {
        let names = ProjectionMetadata.of(PersonProjection.self).properties.map(\.name)
        #expect(names == ["firstName", "homeCity", "firstFriendsName"])
        #expect(!names.contains("lastName"))
        let paths = ProjectionMetadata.of(PersonProjection.self).dependencies
        #expect(!paths.contains(["lastName"]))
    }

    @Test func dependencySetsForEachForm() {
        let person = ProjectionMetadata.of(PersonProjection.self)
        #expect(person.property(named: "firstName")?.recorded.dependencies == [["firstName"]])
        #expect(person.property(named: "homeCity")?.recorded.dependencies == [["address"], ["address", "city"]])
        #expect(person.property(named: "firstFriendsName")?.recorded.dependencies == [["friends"], ["friends", "firstName"]])
        let profile = ProjectionMetadata.of(Profile.self)
        #expect(profile.property(named: "lastNameInitial")?.recorded.dependencies == [["lastName"]])
        #expect(profile.property(named: "dogs")?.recorded.dependencies == [["dogs"]])
    }

    @Test func projectedCollectionsAreLiveAndWriteThrough() throws {
        let (store, jason) = try Self.seeded()
        let projection = PersonProjection(projecting: jason)
        let names = projection.firstFriendsName
        #expect(Array(names) == ["Marie", "Nikita"])
        try store.write {
            let extra = Person()
            extra.firstName = "Zed"
            jason.friends.append(extra)
        }
        #expect(Array(names) == ["Marie", "Nikita", "Zed"])
        try store.write { jason.friends.remove(at: 0) }
        #expect(Array(names) == ["Nikita", "Zed"])
        try store.write { jason.friends[0].firstName = "Nina" }
        #expect(Array(names) == ["Nina", "Zed"])
        try store.write { names[1] = "Zoe" }
        #expect(jason.friends[1].firstName == "Zoe")
    }

    @Test func derivedQueriesMapProjectedNamesBackToBasePaths() throws {
        let (store, _) = try Self.seeded()
        let oslo = store.objects(PersonProjection.self).filter(#Predicate { $0.homeCity == "Oslo" })
        let base = store.objects(Person.self).filter(#Predicate { $0.address?.city == "Oslo" })
        #expect(oslo.map(\.firstName) == base.map(\.firstName))
        #expect(oslo.map(\.firstName) == ["Jason"])
        let passthrough = store.objects(PersonProjection.self).filter(#Predicate { $0.firstName == "Marie" })
        #expect(passthrough.count == 1)
        // Translated: the projected key paths resolve to base paths.
        let query = try Query(#Predicate<PersonProjection> { $0.homeCity == "Oslo" }, resolver: ResultsQuery<PersonProjection>.resolve)
        #expect(query.isExact && query.node == .compare(["address", "city"], .equal, .string("Oslo")))
        let sorted = store.objects(PersonProjection.self).sorted(by: \.firstName, ascending: false)
        #expect(sorted.map(\.firstName) == ["Nikita", "Marie", "Jason"])
    }

    @Test func derivedQueriesOnTransformedPropertiesEvaluatePerObject() throws {
        let store = try scratchStore()
        for last in ["smith", "Stone", "jones"] {
            let employee = Employee()
            employee.lastName = last
            try store.write { store.add(employee) }
        }
        let s = store.objects(TransformProjection.self).filter(#Predicate { $0.capitalized.starts(with: "S") })
        #expect(s.count == 2)
        let query = try Query(#Predicate<TransformProjection> { $0.capitalized == "Smith" }, resolver: ResultsQuery<TransformProjection>.resolve)
        #expect(!query.isExact, "a transformed property is evaluated object by object")
        #expect(query.referencedPaths == [["lastName"]])
        #expect(store.objects(TransformProjection.self).filter(#Predicate { $0.capitalized == "Smith" }).count == 1)
        let byInitial = store.objects(Profile.self).sorted(by: \.lastNameInitial)
        #expect(byInitial.map { $0.lastNameInitial.map(String.init) ?? "" } == ["J", "S", "S"])
    }

    @Test func settingATransformedPropertyStopsWithItsName() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try Store(configuration: .inMemory())
            let employee = Employee()
            try store.write { store.add(employee) }
            // Swift lets the projection's property be set (its key path type
            // is inferred as settable), but the base key path is a
            // transformation that cannot be written.
            try store.write { TransformProjection(projecting: employee).capitalized = "X" }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("TransformProjection.capitalized") && message.contains("not writable"), "stderr: \(message)")
    }

    @Test func projectionsAreSendableHandlesWithBaseEquality() async throws {
        let (store, jason) = try Self.seeded()
        let projection = try #require(store.objects(PersonProjection.self).first(where: { $0.firstName == "Jason" }))
        let again = PersonProjection(projecting: jason)
        #expect(projection == again && projection.hashValue == again.hashValue)
        let city = await Task.detached { projection.homeCity }.value
        #expect(city == "Oslo")
    }

    @Test func buildingAProjectionDoesNoReflection() throws {
        let (store, _) = try Self.seeded()
        _ = ProjectionMetadata.of(PersonProjection.self)
        // Metadata is cached per type: the same instance comes back.
        #expect(ProjectionMetadata.of(PersonProjection.self) === ProjectionMetadata.of(PersonProjection.self))
        #expect(store.objects(PersonProjection.self).map(\.firstName).count == 3)
    }
}

/// A projection whose property transforms its base value.
final class TransformProjection: Projection<Employee> {
    @Projected(\Employee.lastName.localizedCapitalized) var capitalized
}
extension TransformProjection: @unchecked Sendable {}

/// A projection over a base class, for a subclass's objects: its direct
/// reads must not use the base class's property numbering.
final class TallyBaseCard: Projection<TallyBase> {
    @Projected(\TallyBase.id) var id
}
extension TallyBaseCard: @unchecked Sendable {}

final class AnnotatedCard: Projection<Annotated> {
    @Projected(\Annotated.remark) var remark
    @Projected(\Annotated.note.count) var noteLength
    @Projected(\Annotated.count) var count
}
extension AnnotatedCard: @unchecked Sendable {}

/// `@Projected` passthroughs read the property directly
/// (``ProjectedReader``); everything else applies the key path, with the
/// same answers.
@Suite("Projections: direct reads")
struct ProjectedReaderTests {
    @Test func passthroughsOfOwnPropertiesHaveADirectReadAndTransformationsDoNot() {
        #expect(ProjectedReader.ordinal(of: \Tally.name) != nil)
        #expect(ProjectedReader.ordinal(of: \Annotated.remark) != nil)
        #expect(ProjectedReader.ordinal(of: \Annotated.note.count) == nil)
        #expect(ProjectedReader.ordinal(of: \Person.address?.city) == nil)
    }

    @Test func directReadsAnswerAsTheKeyPathDoes() throws {
        let store = try scratchStore()
        try store.write {
            for id in 0..<6 {
                let annotated = Annotated()
                (annotated.id, annotated.note, annotated.remark, annotated.count) = (id, String(repeating: "x", count: id), id % 2 == 0 ? nil : "r\(id)", -id)
                store.add(annotated)
            }
            store.create(DerivedTally.self, value: ["id": 7, "score": 99])
        }
        let cards = store.objects(AnnotatedCard.self).map { "\($0.remark ?? "nil") \($0.noteLength) \($0.count)" }
        #expect(cards == ["nil 0 0", "r1 1 -1", "nil 2 -2", "r3 3 -3", "nil 4 -4", "r5 5 -5"])
        // A subclass numbers its properties differently: the read falls back to the key path.
        let derived = try #require(store.objects(DerivedTally.self).first)
        #expect(TallyBaseCard(projecting: derived).id == 7)
        let unmanaged = DerivedTally()
        unmanaged.id = 3
        #expect(TallyBaseCard(projecting: unmanaged).id == 3)
        // Writes still go through the key path.
        let card = try #require(store.objects(AnnotatedCard.self).first)
        try store.write { card.remark = "set" }
        #expect(card.remark == "set" && card.rootObject.remark == "set")
    }
}
