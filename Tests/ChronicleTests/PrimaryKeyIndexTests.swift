import Foundation
import Testing
@testable import Chronicle

@Suite("PrimaryKeyIndex")
struct PrimaryKeyIndexTests {
    @Test func everyKindOfKeyRoundTrips() {
        var index = PrimaryKeyIndex()
        let keys: [PersistedValue] = [.int(0), .int(1), .int(.max), .int(-1), .int(.min), .string("a"), .string(""),
                                      .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))]
        for (position, key) in keys.enumerated() { index[key] = ObjectKey(Int64(position + 1)) }
        index._checkInvariants()
        #expect(index.count == keys.count)
        #expect(index.integerCount == 3)
        #expect(index.run.range == 0..<2 && index.run.offset == 1, "ids 0 and 1 follow the keys 1 and 2")
        #expect(index.integers.count == 1, "Int.max does not follow them: the int trie")
        for (position, key) in keys.enumerated() { #expect(index[key] == ObjectKey(Int64(position + 1)), "\(key)") }
        #expect(index[.int(2)] == nil && index[.string("b")] == nil)
        index[.int(1)] = nil
        index[.string("a")] = nil
        index._checkInvariants()
        #expect(index.count == keys.count - 2)
        #expect(index[.int(1)] == nil && index[.string("a")] == nil && index[.int(0)] == ObjectKey(1))
    }

    @Test func aBulkLoadOfIdsSharesAlmostEverythingWithTheVersionBefore() {
        // Ids that do not follow the objects' keys (every other key): the int trie.
        var index = PrimaryKeyIndex()
        for id in Int64(1)...100_000 { index[.int(id)] = ObjectKey(2 * id) }
        #expect(index.run.range.count == 1 && index.integers.count == 99_999)
        let before = index
        for id in Int64(100_001)...100_100 { index[.int(id)] = ObjectKey(2 * id) }
        let added = index.integers._nodeIdentities().subtracting(before.integers._nodeIdentities())
        // 100 sequential ids: the new leaves and their path, not a copy of the index.
        #expect(added.count <= 6)
        #expect(before.count == 100_000 && index.count == 100_100)
    }

    /// Ids counted up with the objects' keys are a run: no trie node at
    /// all, whether added one by one or appended in bulk, and every
    /// lookup answers as the trie did.
    @Test(arguments: [false, true])
    func idsThatFollowTheKeysAreARun(bulk: Bool) {
        var index = PrimaryKeyIndex()
        if bulk {
            index.appendIntegers(count: 1_000, key: { Int64($0) }, object: { ObjectKey(Int64($0) + 1) })
        } else {
            for id in Int64(0)..<1_000 { index[.int(id)] = ObjectKey(id + 1) }
        }
        index._checkInvariants()
        #expect(index.run.range == 0..<1_000 && index.run.offset == 1)
        #expect(index.integers.isEmpty && index.holes.isEmpty)
        #expect(index.count == 1_000 && index.largestInteger == 999)
        for id in Int64(0)..<1_000 { #expect(index[.int(id)] == ObjectKey(id + 1)) }
        #expect(index[.int(1_000)] == nil && index[.int(-1)] == nil)

        // Ids that follow with a short gap (its ids become holes), then
        // one for another key and one too far on: the int trie.
        let appended: [(Int64, Int64)] = [(1_000, 1_001), (1_001, 1_002), (1_005, 1_006), (1_006, 2_000), (1_200, 1_201)]
        if bulk {
            index.appendIntegers(count: appended.count, key: { appended[$0].0 }, object: { ObjectKey(appended[$0].1) })
        } else {
            for (id, key) in appended { index[.int(id)] = ObjectKey(key) }
        }
        index._checkInvariants()
        #expect(index.run.range == 0..<1_006 && index.holes.count == 3, "1,002–1,004 are holes")
        #expect(index.integers.count == 2 && index.largestInteger == 1_200)
        for (id, key) in appended { #expect(index[.int(id)] == ObjectKey(key)) }
        for id in Int64(1_002)...1_004 { #expect(index[.int(id)] == nil) }
        #expect(index[.int(1_007)] == nil && index.count == 1_005)
    }

    /// The largest id cannot end a run's range: alone, first, or appended
    /// right after the run, it goes to the trie.
    @Test func theLargestIdLivesInTheTrie() {
        var alone = PrimaryKeyIndex()
        alone[.int(.max)] = ObjectKey(1)
        var appended = PrimaryKeyIndex()
        appended.appendIntegers(count: 1, key: { _ in .max }, object: { _ in ObjectKey(1) })
        var afterRun = PrimaryKeyIndex()
        afterRun.appendIntegers(count: 2, key: { Int64.max - 1 + Int64($0) }, object: { ObjectKey(1 + Int64($0)) })
        for index in [alone, appended, afterRun] {
            index._checkInvariants()
            #expect(index[.int(.max)] != nil && index.integers.count == 1 && index.largestInteger == .max)
        }
        #expect(afterRun.run.range == Int64.max - 1..<Int64.max && afterRun[.int(.max - 1)] == ObjectKey(1))
    }

    /// Removing ids from a run: the last one shortens it; one inside
    /// becomes a hole, which a lookup answers `nil`; an id of the run
    /// given to another object leaves a hole and lives in the trie; and a
    /// hole given back to the key the run gives is the run's again.
    @Test func removingAndMovingIdsOfARun() {
        var index = PrimaryKeyIndex()
        for id in Int64(10)..<20 { index[.int(id)] = ObjectKey(id + 5) }
        let before = index
        index[.int(19)] = nil
        #expect(index.run.range == 10..<19 && index.holes.isEmpty)
        index[.int(12)] = nil
        index[.int(12)] = nil  // again: nothing more to remove
        index[.int(14)] = ObjectKey(100)  // id 14 now names another object
        index._checkInvariants()
        #expect(index[.int(12)] == nil && index[.int(19)] == nil)
        #expect(index[.int(14)] == ObjectKey(100) && index[.int(13)] == ObjectKey(18))
        #expect(index.count == 8 && index.holes.count == 2 && index.integers.count == 1)
        index[.int(14)] = nil
        #expect(index[.int(14)] == nil && index.count == 7)
        index[.int(12)] = ObjectKey(17)  // the key the run gives it
        #expect(index[.int(12)] == ObjectKey(17) && index.holes.count == 1)
        // Removing the run's last ids down to a hole shortens it past the hole.
        for id in Int64(15)..<19 { index[.int(id)] = nil }
        index._checkInvariants()
        #expect(index.run.range == 10..<14 && index.holes.isEmpty && index.count == 4)
        for id in Int64(10)..<14 { #expect(index[.int(id)] == ObjectKey(id + 5)) }
        // The copy taken first still answers as it did.
        for id in Int64(10)..<20 { #expect(before[.int(id)] == ObjectKey(id + 5)) }
        #expect(before.count == 10)
        index._checkInvariants()
    }

    /// A store whose ids follow its objects' keys keeps them as a run
    /// through every way a table is made: a fold, one-by-one adds, and a
    /// checkpoint file's restore; deleting objects leaves the lookups right.
    @Test func aStoresIdsStayARunThroughFoldsAndCheckpoints() throws {
        let url = try JournalFixtures.journalURL()
        var configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: [RunPlayer.self])
        do {
            let store = try Store(configuration: configuration)
            try store.write {
                for id in 0..<500 { store.add(RunPlayer.make(id)) }
            }
            try store.write {
                store.add(RunPlayer.make(500))
                store.delete(try #require(store.object(ofType: RunPlayer.self, forPrimaryKey: 250)))
            }
            try store.writeCheckpoint()
        }
        for checkpointFile in [false, true] {
            configuration.checkpoints.usesFile = checkpointFile
            let store = try Store(configuration: configuration)
            let state = store.committedState()
            #expect(state._invariantViolations().isEmpty)
            let index = state.tables[try #require(state.tableIndex(named: "RunPlayer"))].primaryKeyIndex
            index._checkInvariants()
            #expect(index.run.range.count >= 500 && index.integers.isEmpty, "checkpoint file: \(checkpointFile)")
            #expect(index.count == 500)
            #expect(store.object(ofType: RunPlayer.self, forPrimaryKey: 250) == nil)
            #expect(store.object(ofType: RunPlayer.self, forPrimaryKey: 499)?.score == 499)
            #expect(store.object(ofType: RunPlayer.self, forPrimaryKey: 500)?.score == 500)
        }
    }
}

extension RunPlayer {
    static func make(_ id: Int) -> RunPlayer {
        let player = RunPlayer()
        player.id = id
        player.score = id
        return player
    }
}

final class RunPlayer: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var score = 0
}
// As every model class: an object's values are guarded by its store (see `Object`).
extension RunPlayer: @unchecked Sendable {}
