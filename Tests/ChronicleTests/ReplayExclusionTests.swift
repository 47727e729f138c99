import Foundation
import Testing
@testable import Chronicle

@Suite("Replay: replaying with excluded commits")
struct ReplayExclusionTests {
    /// The oracle: the commits without `excluded`, folded event by event,
    /// skipping the events that do not apply (no schema commit is excluded,
    /// so indexes need no renumbering).
    static func foldSkipping(_ commits: [Commit], excluding excluded: Set<UInt64>) -> (StoreState, [UInt64: Int]) {
        var state = StoreState()
        var skipped: [UInt64: Int] = [:]
        for commit in commits where !excluded.contains(commit.version) {
            var changes = ChangeSetBuilder()
            for event in commit.events {
                do { try state.apply(event, changes: &changes) } catch { skipped[commit.version, default: 0] += 1 }
            }
        }
        return (state, skipped)
    }

    @Test func excludingACommitGivesTheStateOfTheJournalWithoutIt() throws {
        let commits = RandomHistory.commits(seed: 21, count: 120)
        let journal = try Journal(contentsOf: ReplayFixtures.journal(commits))
        var cleanCases = 0, dirtyCases = 0
        for excluded in stride(from: UInt64(2), through: 121, by: 7) {
            let replay = try Store.replaying(journal, excluding: [excluded])
            #expect(replay.isFinished && replay.store.version == 121)
            let withoutIt = commits.filter { $0.version != excluded }
            // Where the journal without the commit folds as it is, the replay is that fold and skips nothing.
            if let clean = try? withoutIt.reduce(StoreState(), { state, commit in
                var next = state
                var changes = ChangeSetBuilder()
                for event in commit.events { try next.apply(event, changes: &changes) }
                return next
            }) {
                cleanCases += 1
                #expect(replay.store.committedState().isContentEqual(clean), "excluding \(excluded)")
                #expect(replay.skippedEvents.isEmpty)
            } else {
                dirtyCases += 1
                let (expected, skipped) = Self.foldSkipping(commits, excluding: [excluded])
                #expect(replay.store.committedState().isContentEqual(expected), "excluding \(excluded)")
                #expect(Dictionary(grouping: replay.skippedEvents, by: \.version).mapValues(\.count) == skipped)
                #expect(replay.skippedEvents.allSatisfy { $0.cause == excluded && $0.version > excluded })
                #expect(replay.skippedEvents(causedBy: excluded).count == replay.skippedEvents.count)
            }
            replay.store.committedState()._checkInvariants()
        }
        #expect(cleanCases > 0 && dirtyCases > 0)
    }

    @Test func replayingWithoutExclusionsRebuildsTheJournal() throws {
        let commits = RandomHistory.commits(seed: 22, count: 60)
        let journal = try Journal(contentsOf: ReplayFixtures.journal(commits))
        let replay = try Store.replaying(journal, through: 40)
        #expect(replay.store.version == 40 && replay.skippedEvents.isEmpty)
        #expect(replay.store.committedState().isContentEqual(try ReplayFixtures.prefixStates(commits)[40]))
        #expect(try JournalFixtures.readAll(replay.store.journal) == Array(commits.prefix(40)))
        #expect(throws: StoreError.self) { try Store.replaying(journal, through: 62) }
    }

    @Test func anEditOfAnObjectThatNeverExistedIsReportedNotFatal() throws {
        let store = try Store(configuration: .inMemory(identifier: "source", clock: ReplayFixtures.clock()))
        try store.write(label: "one") { store.create(Counter.self, value: ["id": 1]) }      // v1 (+ schema)
        let two = try store.write(label: "two") { store.create(Counter.self, value: ["id": 2]) }  // v2
        try store.write(label: "bump two") { two.value = 5 }                                 // v3
        try store.write(label: "bump both") {                                                // v4
            two.value = 6
            store.object(ofType: Counter.self, forPrimaryKey: 1)!.value = 1
        }
        let replay = try Store.replaying(store.journal, excluding: [2])
        let skipped = replay.skippedEvents
        #expect(skipped.map(\.version) == [3, 4])
        #expect(skipped.allSatisfy { $0.cause == 2 })
        #expect(skipped.allSatisfy { if case .noSuchObject = $0.error.reason { true } else { false } })
        #expect(skipped[1].eventIndex == 0)
        #expect(replay.store.objects(Counter.self).map(\.id) == [1])
        #expect(replay.store.object(ofType: Counter.self, forPrimaryKey: 1)?.value == 1)
        // Versions stay aligned with the source; the excluded commit is an empty one.
        let frozen = try replay.store.frozen(at: 2)
        #expect(frozen.label == "two" && frozen.objects(Counter.self).count == 1)
        let replayed = try JournalFixtures.readAll(replay.store.journal)
        #expect(replayed[1].events.isEmpty && replayed[1].metadata["chronicle.replay"] == "excluded")
    }

    @Test func excludingASchemaCommitRenumbersTheTypesAfterIt() throws {
        let a = TypeSchema(name: "A", properties: [PropertySchema(name: "x", type: .int)])
        let b = TypeSchema(name: "B", properties: [PropertySchema(name: "y", type: .string)])
        let t = Date(timeIntervalSinceReferenceDate: 0)
        let commits = [
            Commit(version: 1, timestamp: t, events: [.defineType(a)]),
            Commit(version: 2, timestamp: t, events: [.defineType(b), .create(table: 0, key: ObjectKey(1), values: [.int(1)])]),
            Commit(version: 3, timestamp: t, events: [.create(table: 1, key: ObjectKey(1), values: [.string("b")]),
                                                     .addProperty(table: 1, PropertySchema(name: "z", type: .int))]),
            Commit(version: 4, timestamp: t, events: [.set(table: 1, key: ObjectKey(1), property: 1, value: .int(9)),
                                                     .set(table: 0, key: ObjectKey(1), property: 0, value: .int(2))]),
        ]
        let journal = Journal.inMemory()
        for commit in commits { try journal.append(commit) }
        let replay = try Store.replaying(journal, excluding: [1])
        let state = replay.store.committedState()
        #expect(state.schema.map(\.name) == ["B"])
        #expect(state.object(table: 0, key: ObjectKey(1))?.values == [.string("b"), .int(9)])
        #expect(replay.skippedEvents.map { "\($0.version).\($0.eventIndex)" } == ["2.1", "4.1"])
        #expect(replay.skippedEvents.allSatisfy { $0.cause == 1 })
    }

    @Test func observersSeeTheCommitsAsTheyAreStepped() async throws {
        let store = try Store(configuration: .inMemory(identifier: "steps", clock: ReplayFixtures.clock()))
        for id in 1...3 { try store.write(label: "add \(id)") { store.create(Counter.self, value: ["id": id]) } }
        let replay = try Store.replaying(store.journal, paused: true)
        #expect(replay.store.version == 0 && replay.nextVersion == 1)
        let first = try #require(try replay.step())
        #expect(first.commit.label == "add 1" && first.changes.insertions.count == 1 && replay.store.version == 1)
        var updates = replay.store.objects(Counter.self).changes().makeAsyncIterator()
        guard case .initial(let initial)? = await updates.next() else {
            Issue.record("no initial")
            return
        }
        #expect(initial.count == 1)
        try replay.step()
        guard case .update(let results, _, let insertions, _)? = await updates.next() else {
            Issue.record("no update")
            return
        }
        #expect(results.count == 2 && insertions == [1])
        try replay.advance(to: 3)
        #expect(replay.isFinished && replay.store.objects(Counter.self).count == 3)
        #expect(try replay.step() == nil)
    }
}
