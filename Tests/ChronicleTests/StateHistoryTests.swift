import Foundation
import Testing
@testable import Chronicle

@Suite("StoreState: random histories")
struct StateHistoryTests {
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func invariantsHoldAfterEveryCommit(seed: UInt64) throws {
        var history = RandomHistory(seed: seed)
        for _ in 0..<150 {
            let before = history.state
            let commit = history.nextCommit()
            #expect(history.state._invariantViolations() == [])
            #expect(history.state.version == commit.version)
            #expect(before.version == commit.version - 1)
            before._checkInvariants()  // old versions are untouched
        }
        #expect(history.state.count(table: RandomHistory.Person.table) > 0)
    }

    @Test(arguments: [UInt64(7), 8])
    func foldingTwiceGivesEqualStates(seed: UInt64) throws {
        let commits = RandomHistory.commits(seed: seed, count: 120)
        func fold() throws -> (StoreState, [ChangeSet]) {
            var state = StoreState()
            var changes: [ChangeSet] = []
            for commit in commits {
                let next = try state.applying(commit)
                state = next.state
                changes.append(next.changes)
            }
            return (state, changes)
        }
        let (first, firstChanges) = try fold()
        let (second, secondChanges) = try fold()
        #expect(first.isContentEqual(second))
        #expect(firstChanges == secondChanges)
        #expect(first.version == UInt64(commits.count))
    }

    @Test(arguments: [UInt64(9), 10])
    func applyingEqualsEventByEventApply(seed: UInt64) throws {
        let commits = RandomHistory.commits(seed: seed, count: 80)
        var byCommit = StoreState()
        var byEvent = StoreState()
        for commit in commits {
            let (next, changes) = try byCommit.applying(commit)
            byCommit = next
            var builder = ChangeSetBuilder()
            for event in commit.events { try byEvent.apply(event, changes: &builder) }
            byEvent.version = commit.version
            #expect(builder.build(version: commit.version) == changes)
            #expect(byCommit.isContentEqual(byEvent))
        }
    }

    @Test func changeSetsDescribeTheDifferenceBetweenVersions() throws {
        var history = RandomHistory(seed: 42)
        for _ in 0..<150 {
            let before = history.state
            let commit = history.nextCommit()
            let (after, changes) = try before.applying(commit)
            for table in before.schema.indices {
                let old = Dictionary(uniqueKeysWithValues: before.objects(table: table).map { ($0.key, $0.record) })
                let new = Dictionary(uniqueKeysWithValues: after.objects(table: table).map { ($0.key, $0.record) })
                let inserted = Set(new.keys).subtracting(old.keys)
                let deleted = Set(old.keys).subtracting(new.keys)
                #expect(Set(changes.insertions.filter { $0.table == table }.map(\.key)) == inserted)
                #expect(Set(changes.deletions.filter { $0.table == table }.map(\.key)) == deleted)
                for (key, record) in new where old[key] != nil {
                    let expected = zip(old[key]!.values, record.values).enumerated().compactMap { property, pair in
                        pair.0 == pair.1 ? nil : PropertyDelta(property: property, oldValue: pair.0, newValue: pair.1)
                    }
                    #expect(changes.modification(table: table, key: key)?.properties ?? [] == expected)
                }
            }
        }
    }

    /// Random, often invalid events: whenever one fails, nothing changed.
    @Test(arguments: [UInt64(11), 12])
    func failedEventsLeaveTheStateUnchanged(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        var history = RandomHistory(seed: seed)
        for _ in 0..<40 { history.nextCommit() }
        var state = history.state
        var failures = 0
        for _ in 0..<2000 {
            let event = StateTestSupport.randomEvent(in: state, using: &rng)
            let before = state
            var builder = ChangeSetBuilder()
            do {
                try state.apply(event, changes: &builder)
            } catch {
                failures += 1
                #expect(state.isContentEqual(before))
                #expect(builder.isEmpty)
            }
        }
        state._checkInvariants()
        #expect(failures > 100)
    }

    @Test func aCommitCopiesOnlyTheNodesItTouches() throws {
        let person = RandomHistory.Person.self
        var state = StoreState()
        var builder = ChangeSetBuilder()
        for event in RandomHistory.schemaEvents { try state.apply(event, changes: &builder) }
        for key in Int64(1)...100_000 {
            try state.apply(.create(table: 0, key: ObjectKey(key), values: StateTestSupport.person(id: key)), changes: &builder)
        }
        state.version = 1
        let commit = Commit(version: 2, timestamp: Date(), events: [
            .set(table: 0, key: ObjectKey(777), property: person.name, value: .string("Zed")),
        ])
        let (next, changes) = try state.applying(commit)
        #expect(changes.modifications.count == 1)
        let old = state.tables[0], new = next.tables[0]
        #expect(new.objects._nodeIdentities().subtracting(old.objects._nodeIdentities()).count == 3)
        #expect(new.primaryKeyIndex.integers.root === old.primaryKeyIndex.integers.root)
        #expect(new.primaryKeyIndex.others.root === old.primaryKeyIndex.others.root)
        let oldIndex = old.secondaryIndexes[person.name]!._nodeIdentities()
        #expect(new.secondaryIndexes[person.name]!._nodeIdentities().subtracting(oldIndex).count <= 4)
        #expect(new.secondaryIndexes[person.age]!.root === old.secondaryIndexes[person.age]!.root)
    }
}
