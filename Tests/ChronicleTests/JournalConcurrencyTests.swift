import Foundation
import Synchronization
import Testing
@testable import Chronicle

@Suite("Journal: concurrent committers and group commit")
struct JournalConcurrencyTests {
    /// Numbers commits as committers do: the version counter is held only
    /// around `write`; waiting for durability happens outside it.
    final class Committer: Sendable {
        let journal: Journal
        let writerLock = Locked<UInt64>(0)  // commits this committer wrote

        init(_ journal: Journal) { self.journal = journal }

        func commit(payload: Int) throws -> UInt64 {
            let ticket = try writerLock.withLock { written throws(JournalError) -> DurabilityTicket in
                let version = journal.lastVersion + 1
                let ticket = try journal.write(JournalFixtures.commit(version, payload: payload))
                written += 1
                return ticket
            }
            try journal.waitUntilDurable(ticket)
            return ticket.version
        }
    }

    @Test(arguments: [Durability.full, .batched(maxDelay: .milliseconds(2), maxCommits: 16), .none])
    func eightTasksAppendConcurrently(durability: Durability) async throws {
        let url = try JournalFixtures.journalURL()
        let committer = Committer(try Journal(fileURL: url, durability: durability))
        let perTask = 100
        let versions = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mine: [UInt64] = []
                    for _ in 0..<perTask { mine.append(try committer.commit(payload: task * 10)) }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(versions.sorted() == Array(1...UInt64(8 * perTask)))
        try committer.journal.close()
        let reopened = try Journal(contentsOf: url)
        #expect(try JournalFixtures.readAll(reopened).map(\.version) == Array(1...UInt64(8 * perTask)))
    }

    /// Commits from one thread per element of `counts`, each making that many
    /// commits and stopping at its first error; returns how many threads failed.
    static func commitFromThreads(_ committer: Committer, counts: [Int]) -> Int {
        let failures = Atomic<Int>(0)
        let done = DispatchGroup()
        for count in counts {
            done.enter()
            Thread {
                for _ in 0..<count where (try? committer.commit(payload: 8)) == nil {
                    failures.add(1, ordering: .relaxed)
                    break
                }
                done.leave()
            }.start()
        }
        done.wait()
        return failures.load(ordering: .relaxed)
    }

    /// A durable journal whose syncs are counted and take `delay` (a slow
    /// disk, so committers pile up behind the leader).
    static func slowSyncingJournal(delay: useconds_t = 500) throws -> (Journal, SyncCounter) {
        let journal = try Journal(fileURL: try JournalFixtures.journalURL(), durability: .full)
        let syncs = SyncCounter()
        journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in
            syncs.count.add(1, ordering: .relaxed)
            usleep(delay)
        })
        return (journal, syncs)
    }

    final class SyncCounter: Sendable {
        let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
    }

    /// Eight threads committing with full durability share syncs: far fewer
    /// syncs than commits, yet every commit was durable when it returned.
    @Test func groupCommitSharesSyncs() throws {
        let (journal, syncs) = try Self.slowSyncingJournal()
        let threads = 8, perThread = 50
        #expect(Self.commitFromThreads(Committer(journal), counts: Array(repeating: perThread, count: threads)) == 0)
        #expect(journal.lastVersion == UInt64(threads * perThread))
        let count = syncs.value
        #expect(count < threads * perThread / 2, "\(count) syncs for \(threads * perThread) commits")
        #expect(count > 0)
    }

    /// A sync waits for the committers the previous one released: eight
    /// threads get about one sync per eight commits, where leading at once
    /// splits them into two halves taking turns, four commits a sync.
    @Test func groupCommitGathersTheCommittersTheLastSyncReleased() throws {
        // A 1 ms sync gives the released threads a 2 ms window to commit
        // again, ample even on a loaded two-core machine.
        let (journal, syncs) = try Self.slowSyncingJournal(delay: 1_000)
        let threads = 8, perThread = 50
        #expect(Self.commitFromThreads(Committer(journal), counts: Array(repeating: perThread, count: threads)) == 0)
        let count = syncs.value
        #expect(count <= threads * perThread / 6, "\(count) syncs for \(threads * perThread) commits")
    }

    /// Committers leave one by one, so each sync expects more commits than
    /// will come: the group is synced at the end of the wait anyway, and the
    /// last committer, alone, still gets every commit through.
    @Test(.timeLimit(.minutes(1))) func aShrinkingGroupIsStillSynced() throws {
        let (journal, syncs) = try Self.slowSyncingJournal()
        let counts = (1...8).map { $0 * 5 }
        #expect(Self.commitFromThreads(Committer(journal), counts: counts) == 0)
        #expect(journal.lastVersion == UInt64(counts.reduce(0, +)))
        #expect(syncs.value > 0)
        try journal.close()
    }

    /// A sync that fails while others gather for the next one fails them
    /// all: nobody waits for a sync that will not come.
    @Test(.timeLimit(.minutes(1))) func aFailedSyncReleasesEveryWaitingCommitter() throws {
        let journal = try Journal(fileURL: try JournalFixtures.journalURL(), durability: .full)
        let syncs = Atomic<Int>(0)
        journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in
            usleep(300)
            if syncs.add(1, ordering: .relaxed).newValue >= 20 { throw .io(operation: "fdatasync", errno: EIO, path: "simulated") }
        })
        let threads = 8
        #expect(Self.commitFromThreads(Committer(journal), counts: Array(repeating: 1_000, count: threads)) == threads)
        #expect(journal.failure != nil)
    }

    @Test func batchedDurabilitySyncsWithinTheDelay() throws {
        let journal = Journal.inMemory(durability: .batched(maxDelay: .milliseconds(20), maxCommits: 1000))
        let syncs = Atomic<Int>(0)
        journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in syncs.add(1, ordering: .relaxed) })
        for version in 1...10 { try journal.append(JournalFixtures.commit(UInt64(version))) }
        #expect(syncs.load(ordering: .relaxed) == 0)  // appends returned without syncing
        let deadline = ContinuousClock.now + .seconds(5)
        while syncs.load(ordering: .relaxed) == 0 && ContinuousClock.now < deadline { usleep(1000) }
        #expect(syncs.load(ordering: .relaxed) >= 1)  // the flusher synced them
    }

    @Test func batchedDurabilitySyncsAfterMaxCommits() throws {
        let journal = Journal.inMemory(durability: .batched(maxDelay: .seconds(3600), maxCommits: 10))
        let syncs = Atomic<Int>(0)
        journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in syncs.add(1, ordering: .relaxed) })
        for version in 1...9 { try journal.append(JournalFixtures.commit(UInt64(version))) }
        #expect(syncs.load(ordering: .relaxed) == 0)
        try journal.append(JournalFixtures.commit(10))
        #expect(syncs.load(ordering: .relaxed) == 1)
        for version in 11...30 { try journal.append(JournalFixtures.commit(UInt64(version))) }
        #expect(syncs.load(ordering: .relaxed) == 3)
    }

    @Test func noneNeverSyncsUnlessAsked() throws {
        let journal = Journal.inMemory(durability: .none)
        let syncs = Atomic<Int>(0)
        journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in syncs.add(1, ordering: .relaxed) })
        for version in 1...100 { try journal.append(JournalFixtures.commit(UInt64(version))) }
        #expect(syncs.load(ordering: .relaxed) == 0)
        try journal.sync()
        #expect(syncs.load(ordering: .relaxed) == 1)
        try journal.sync()  // nothing new written: nothing to sync
        #expect(syncs.load(ordering: .relaxed) == 1)
    }

    @Test func readersRunWhileCommittersAppend() async throws {
        let journal = Journal.inMemory(durability: .none)
        let committer = Committer(journal)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<2000 { _ = try committer.commit(payload: 4) } }
            group.addTask {
                for _ in 0..<50 {
                    let seen = Array(journal.commits())
                    #expect(seen.map(\.version) == (0..<seen.count).map { UInt64($0 + 1) })
                }
            }
            try await group.waitForAll()
        }
        #expect(Array(journal.commits()).count == 2000)
    }
}
