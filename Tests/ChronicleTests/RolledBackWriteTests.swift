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
