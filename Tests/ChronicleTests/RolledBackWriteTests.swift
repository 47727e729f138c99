import Foundation
import Testing
@testable import Chronicle

/// Found while writing the bad-input catalogue: a write that rolls back
/// (rejected, its body threw, or the disk was full) left the instances it
/// had added bound to keys that were never committed. Adding such an
/// instance again silently added nothing (data loss), and the next new
/// object got the same key, so the stale instance read another object's
/// values (aliasing).
@Suite("Rolled-back writes lose nothing")
struct RolledBackWriteTests {
    struct Boom: Error {}

    @Test func anInstanceFromARolledBackWriteCanBeAddedAgain() throws {
        let store = try scratchStore()
        try store.write { store.create(Gizmo.self, value: ["id": 1, "name": "one"]) }
        let fresh = Gizmo()
        fresh.id = 2
        fresh.name = "two"
        #expect(throws: StoreError.self) {
            try store.write {
                store.add(fresh)
                store.create(Gizmo.self, value: ["id": 1])  // duplicate key: the write rolls back
            }
        }
        #expect(fresh.isInvalidated, "nothing was committed for it")
        // Another new object does not take the key the rolled-back instance holds.
        try store.write { store.create(Gizmo.self, value: ["id": 3, "name": "three"]) }
        #expect(fresh.isInvalidated, "the stale instance does not alias the new object")
        // Adding it again adds it, with its values.
        try store.write { store.add(fresh) }
        #expect(!fresh.isInvalidated)
        #expect(fresh.name == "two")
        #expect(store.objects(Gizmo.self).sorted(by: \.id).map(\.name) == ["one", "two", "three"])
        #expect(store.object(ofType: Gizmo.self, forPrimaryKey: 2)?.name == "two")
        #expect(store.committedState()._invariantViolations().isEmpty)
    }

    /// The store, not the instance, remembers a rolled-back add (so that a
    /// write need not hold every instance it adds): until a write adds the
    /// instance again, and again after that write rolls back too.
    @Test func theStoreRemembersRolledBackAddsUntilTheyAreRetried() throws {
        let store = try scratchStore()
        let gizmo = Gizmo()
        gizmo.id = 7
        #expect(throws: Boom.self) {
            try store.write {
                store.add(gizmo)
                throw Boom()
            }
        }
        let bound = try #require(gizmo.location).key
        #expect(gizmo.addWasRolledBack)
        #expect(store.rolledBackAdds.withLock { $0.map(\.key) } == [bound])
        // Retried in a write that rolls back too: still remembered.
        #expect(throws: Boom.self) {
            try store.write {
                store.add(gizmo)
                throw Boom()
            }
        }
        #expect(gizmo.addWasRolledBack)
        #expect(store.rolledBackAdds.withLock { $0.map(\.key) } == [bound])
        // Retried and committed: forgotten, and the object is there.
        try store.write { store.add(gizmo) }
        #expect(!gizmo.addWasRolledBack)
        #expect(store.rolledBackAdds.withLock { $0.isEmpty })
        #expect(store.object(ofType: Gizmo.self, forPrimaryKey: 7) != nil)
        // An instance dropped after a rolled-back add leaves only its key.
        #expect(throws: Boom.self) {
            try store.write {
                let dropped = Gizmo()
                dropped.id = 8
                store.add(dropped)
                throw Boom()
            }
        }
        #expect(store.rolledBackAdds.withLock { $0.count } == 1)
    }

    /// A write keeps the keys it bound as runs of consecutive keys
    /// (`TableKeyRuns`): a rolled-back write of many objects, in two
    /// tables and with a retried instance between them, records every key.
    @Test func aLargeRolledBackWriteRecordsEveryKeyItBound() throws {
        let store = try scratchStore()
        try store.write {  // Gizmo #1 and Person #1: both tables exist, in this order
            store.create(Gizmo.self, value: ["id": 5_000])
            store.add(Person())
        }
        let retried = Gizmo()  // bound to Gizmo #2 by a write that rolls back
        retried.id = 1_000
        #expect(throws: Boom.self) { try store.write { store.add(retried); throw Boom() } }
        let gizmos = (0..<300).map { id -> Gizmo in
            let gizmo = Gizmo()
            gizmo.id = id
            return gizmo
        }
        let people = (0..<3).map { _ in Person() }
        #expect(throws: Boom.self) {
            try store.write {
                store.add(people[0])  // Person #2, then Gizmo #3: consecutive keys of two tables
                for gizmo in gizmos.prefix(150) { store.add(gizmo) }
                for person in people.dropFirst() { store.add(person) }
                store.add(retried)
                for gizmo in gizmos.dropFirst(150) { store.add(gizmo) }
                throw Boom()
            }
        }
        let all: [ObjectBase] = gizmos + people + [retried]
        let bound = Set(try all.map { object in
            let location = try #require(object.location)
            return TableKey(table: location.table.index, key: location.key)
        })
        let recorded = store.rolledBackAdds.withLock { Set($0) }
        #expect(recorded == bound)
        #expect(store.rolledBackAdds.withLock { $0.count } == 304)
        let allRolledBack = all.allSatisfy { $0.addWasRolledBack }
        #expect(allRolledBack)
    }

    /// The first write of a type registers it; when that write rolls back,
    /// the registration goes too, and the next type registered takes its
    /// table index. Its instances (and their embedded objects) are added
    /// again in the type's new table, at new keys. (This trapped, with
    /// "its table changed since; add a new instance instead".)
    @Test func aRetryAfterAnotherTypeTookTheRolledBackTableAddsItAfresh() throws {
        let url = try JournalFixtures.journalURL()
        let store = try Store(configuration: .init(fileURL: url, durability: .none))
        let person = Person()
        person.firstName = "Ann"
        person.address = Address()
        person.address?.city = "Oslo"
        #expect(throws: Boom.self) {
            try store.write { store.add(person); throw Boom() }  // registers Person, then Address
        }
        let rolledBackTable = try #require(person.location).table.index
        try store.write { store.create(Gizmo.self, value: ["id": 1, "name": "one"]) }  // takes Person's index
        #expect(store.committedState().tableIndex(named: "Gizmo") == rolledBackTable)
        #expect(person.isInvalidated)

        try store.write { store.add(person) }
        #expect(!person.isInvalidated)
        #expect(!person.addWasRolledBack)
        #expect(person.location?.table.index != rolledBackTable)
        #expect(store.rolledBackAdds.withLock { $0.isEmpty })
        #expect(person.firstName == "Ann")
        #expect(person.address?.city == "Oslo")
        let people = store.objects(Person.self)
        #expect(people.count == 1)
        #expect(people.first?.address?.city == "Oslo")
        #expect(store.objects(Gizmo.self).map(\.name) == ["one"])
        #expect(store.committedState()._invariantViolations().isEmpty)
        // The history replays to the same objects.
        let reopened = try Store(configuration: .init(fileURL: url, durability: .none))
        #expect(reopened.objects(Person.self).map(\.firstName) == ["Ann"])
        #expect(reopened.objects(Person.self).first?.address?.city == "Oslo")
    }

    /// An instance whose add rolled back, added with an update policy when
    /// another write has since committed an object with its primary key,
    /// updates that object and becomes it, as an unmanaged instance does.
    @Test func aRetryWhosePrimaryKeyWasTakenSinceBecomesThatObject() throws {
        let store = try scratchStore()
        let gizmo = Gizmo()
        gizmo.id = 9
        gizmo.name = "mine"
        #expect(throws: Boom.self) { try store.write { store.add(gizmo); throw Boom() } }
        try store.write { store.create(Gizmo.self, value: ["id": 9, "name": "theirs"]) }

        try store.write { store.add(gizmo, update: .modified) }
        #expect(!gizmo.isInvalidated)
        #expect(gizmo.name == "mine")
        #expect(store.objects(Gizmo.self).map(\.name) == ["mine"])
        let stored = try #require(store.object(ofType: Gizmo.self, forPrimaryKey: 9))
        #expect(gizmo.location?.key == stored.location?.key)
        #expect(store.rolledBackAdds.withLock { $0.isEmpty })
        // Writes through the instance reach the object.
        try store.write { gizmo.name = "ours" }
        #expect(stored.name == "ours")
    }

    @Test func aThrowingBodyAndEmbeddedObjectsToo() throws {
        let store = try scratchStore()
        let person = Person()
        person.firstName = "Ann"
        person.address = Address()
        person.address?.city = "Oslo"
        #expect(throws: Boom.self) {
            try store.write {
                store.add(person)
                throw Boom()
            }
        }
        #expect(store.objects(Person.self).isEmpty)
        try store.write { store.add(person) }
        #expect(person.firstName == "Ann")
        #expect(person.address?.city == "Oslo")
        #expect(store.objects(Person.self).count == 1)
        // Adding a committed instance again is still a no-op.
        try store.write { store.add(person) }
        #expect(store.objects(Person.self).count == 1)
    }
    /// A write takes the store's key high-water mark once per table and
    /// publishes it when it ends: keys a rolled-back write handed out are
    /// still never handed out again, across several tables and writes.
    @Test func keysOfRolledBackWritesAreNotReusedAcrossTables() throws {
        let store = try scratchStore()
        let gizmos = (0..<3).map { index in
            let gizmo = Gizmo()
            gizmo.id = 10 + index
            return gizmo
        }
        let person = Person()
        #expect(throws: Boom.self) {
            try store.write {
                for gizmo in gizmos { store.add(gizmo) }
                store.add(person)
                throw Boom()
            }
        }
        let keysBound = Set(gizmos.compactMap { $0.location?.key })
        #expect(keysBound.count == 3)
        let later = Gizmo()
        later.id = 20
        let laterPerson = Person()
        try store.write {
            store.add(later)
            store.add(laterPerson)
        }
        #expect(later.location.map { !keysBound.contains($0.key) && $0.key.rawValue > keysBound.map(\.rawValue).max()! } == true)
        #expect(laterPerson.location?.key != person.location?.key)
        #expect(gizmos.allSatisfy(\.isInvalidated) && person.isInvalidated)
    }
}
