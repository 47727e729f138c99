import Foundation
import Testing
@testable import Chronicle

/// A model with an index over values that do not repeat.
final class Account: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var email = ""
}
extension Account: @unchecked Sendable {}

@Suite("In-memory checkpoints without their large indexes")
struct UnindexedCheckpointTests {
    /// Every index left out of the checkpoints (a minimum of one value),
    /// the primary keys' hash tries too (`Dog`'s string ids): time travel
    /// to every version, out of order, so that folds start from such
    /// checkpoints and fill in more, gives what a fresh fold of that
    /// prefix gives, indexes and backlinks included; an indexed look-up,
    /// and a look-up by primary key, in the frozen state finds what the
    /// fresh fold's finds.
    @Test(arguments: [3 as UInt64, 17])
    func frozenStatesFromCheckpointsWithoutIndexesEqualFreshFolds(seed: UInt64) throws {
        let (store, commits, expected) = try ReplayFixtures.timeTravelStore(seed: seed, count: 120) { $0.unindexedMinimum = 1 }
        let kept = store.checkpoints.versions.map { store.checkpoints.nearest(atOrBefore: $0) }
        #expect(kept.contains { $0.tables.contains { $0.deferred is UnindexedTable } },
                "the checkpoints keep their indexed tables without the indexes")
        var rng = SplitMix64(seed: seed)
        for version in Array(0...UInt64(commits.count)).shuffled(using: &rng) {
            let frozen = try store.frozen(at: version)
            let want = expected[Int(version)]
            #expect(frozen.state.isContentEqual(want), "version \(version)")
            frozen.state._checkInvariants()
            for table in want.tables.indices {
                if let primaryKey = want.tables[table].primaryKey {
                    for (key, record) in want.objects(table: table) {
                        #expect(frozen.state.key(table: table, primaryKey: record[primaryKey]) == key, "version \(version)")
                    }
                    #expect(frozen.state.key(table: table, primaryKey: .string("no such key")) == nil)
                }
                for (property, schema) in want.schema[table].properties.enumerated()
                where schema.isIndexed && schema.collection == .none && property != want.tables[table].primaryKey {
                    for (_, record) in want.objects(table: table) {
                        let value = record[property]
                        #expect(frozen.state.keys(table: table, property: property, equalTo: value)
                                == want.keys(table: table, property: property, equalTo: value), "version \(version)")
                    }
                }
            }
        }
    }

    /// With the default policy, a fold of a journal whose index holds
    /// thousands of distinct values keeps its checkpoints without that
    /// index; a frozen view at a checkpoint's version finds objects by the
    /// indexed value, and not those created after it; the live store is
    /// untouched.
    @Test func aLargeIndexIsLeftOutOfTheFoldsCheckpoints() throws {
        let (store, late) = try Self.reopenedWithCheckpoints(of: Account.self) { id in
            let account = Account()
            account.id = id
            account.email = "user\((id &* 7_919) % 100_003)@example.com"
            return account
        }
        #expect(store.objects(Account.self).count == 6_000)
        let frozen = try store.frozen(at: late)
        let inside = "user\((17 &* 7_919) % 100_003)@example.com"
        let after = "user\((5_999 &* 7_919) % 100_003)@example.com"
        #expect(frozen.objects(Account.self).filter(#Predicate { $0.email == inside }).map(\.id) == [17])
        #expect(frozen.objects(Account.self).filter(#Predicate { $0.email == after }).isEmpty)
        #expect(store.objects(Account.self).filter(#Predicate { $0.email == after }).map(\.id) == [5_999])
    }

    /// With the default policy, a fold of a journal of objects whose
    /// primary key is an `ObjectId` (or any key that is not an integer
    /// counted up) keeps its checkpoints without the primary keys' hash
    /// trie; a frozen view at a checkpoint's version finds objects by
    /// primary key, and not those created after it; the live store finds
    /// both.
    @Test func aLargePrimaryKeyHashTrieIsLeftOutOfTheFoldsCheckpoints() throws {
        var ids: [ObjectId] = []
        let (store, late) = try Self.reopenedWithCheckpoints(of: Ticket.self) { number in
            let ticket = Ticket()
            ids.append(ticket._id)
            ticket.number = number
            return ticket
        }
        let frozen = try store.frozen(at: late)
        #expect(frozen.object(ofType: Ticket.self, forPrimaryKey: ids[17])?.number == 17)
        #expect(frozen.object(ofType: Ticket.self, forPrimaryKey: ids[5_999]) == nil)
        #expect(store.object(ofType: Ticket.self, forPrimaryKey: ids[5_999])?.number == 5_999)
        #expect(store.object(ofType: Ticket.self, forPrimaryKey: ids[17])?.number == 17)
        // The live store's own trie still rejects a key it holds.
        #expect(throws: StoreError.self) {
            try store.write { store.create(Ticket.self, value: ["_id": ids[3], "number": -1]) }
        }
        store.committedState()._checkInvariants()
    }

    /// A file store of 6,000 objects that `make` makes from 0..<6000, in
    /// commits of 500, reopened (the fold) with an in-memory checkpoint
    /// every 1,000 events and no checkpoint file; and the version of a
    /// late checkpoint (version v holds objects 0..<500 v), which the test
    /// expects to keep the objects' table without its large index.
    static func reopenedWithCheckpoints<T: Object>(of type: T.Type, name: String = #function,
                                                   _ make: (Int) -> T) throws -> (Store, UInt64) {
        let url = try JournalFixtures.journalURL(name)
        var configuration = Store.Configuration(fileURL: url, objectTypes: [type])
        configuration.checkpoints.usesFile = false
        configuration.checkpoints.interval = 1_000
        do {
            let store = try Store(configuration: configuration)
            for start in stride(from: 0, to: 6_000, by: 500) {
                try store.write { for number in start..<(start + 500) { store.add(make(number)) } }
            }
        }
        let store = try Store(configuration: configuration)
        let late = try #require(store.checkpoints.versions.first { $0 >= 4 && $0 < 12 })
        let checkpoint = store.checkpoints.nearest(atOrBefore: late)
        #expect(checkpoint.version == late)
        let table = try #require(checkpoint.tableIndex(named: "\(type)"))
        #expect(checkpoint.tables[table].deferred is UnindexedTable)
        return (store, late)
    }
}

/// A model with an `ObjectId` primary key, the usual one in Realm's models.
final class Ticket: Object {
    @Persisted(primaryKey: true) var _id = ObjectId.generate()
    @Persisted var number = 0
}
extension Ticket: @unchecked Sendable {}
