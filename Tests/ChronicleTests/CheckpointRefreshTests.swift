import Dispatch
import Foundation
import Testing
@testable import Chronicle

/// The checkpoint file of a long-running store: rewritten in the background
/// once commits add `fileThreshold` events, never on the commit path, and
/// finished (not started) by closing.
@Suite("Checkpoint file: kept fresh")
struct CheckpointRefreshTests {
    static func open(_ url: URL, threshold: Int) throws -> Store {
        var configuration = Store.Configuration(fileURL: url, durability: .none)
        configuration.checkpoints = .init(usesFile: true, fileThreshold: threshold)
        return try Store(configuration: configuration)
    }

    /// The version of the checkpoint file next to the journal at `url`, if
    /// there is one the journal accepts (read without taking the journal over).
    static func fileVersion(_ url: URL) throws -> UInt64? {
        guard case .success(let state) = CheckpointFile.load(for: try Journal(contentsOf: url)) else { return nil }
        return state.version
    }

    /// Temporary files that interrupted checkpoint writes left next to the journal.
    static func leftovers(_ url: URL) throws -> [String] {
        let prefix = FileReplacement.temporaryPrefix(for: CheckpointFile.url(for: url))
        return try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path).filter { $0.hasPrefix(prefix) }
    }

    /// Waits for the store's background checkpoint writes.
    static func settle(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try #require(store.checkpointFile.waitUntilIdle(), "a checkpoint write did not finish", sourceLocation: sourceLocation)
    }

    /// Commits once and returns when the background write that commit
    /// started is stalled, after writing its temporary file, until
    /// `release` is signalled; `writes` counts the writes that complete.
    static func stallingTheFirstWrite(of store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> (release: DispatchSemaphore, writes: Locked<Int>) {
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let firstWrite = Locked(true), writes = Locked(0)
        store.checkpointFile.backgroundFault.withLock {
            $0 = { step in
                if step == .syncedDirectory { writes.withLock { $0 += 1 } }
                guard step == .wroteTemporary else { return }
                let isFirst = firstWrite.withLock { (first: inout Bool) -> Bool in
                    defer { first = false }
                    return first
                }
                guard isFirst else { return }
                entered.signal()
                _ = release.wait(timeout: .now() + 20)
            }
        }
        try bump(store)
        try #require(entered.wait(timeout: .now() + 20) == .success, "the background write never started", sourceLocation: sourceLocation)
        return (release, writes)
    }

    /// One commit of one event (after the first, which defines the type too).
    static func bump(_ store: Store, times: Int = 1) throws {
        for _ in 0..<times {
            try store.write {
                if let counter = store.object(ofType: Counter.self, forPrimaryKey: 1) {
                    counter.value += 1
                } else {
                    store.create(Counter.self, value: ["id": 1])
                }
            }
        }
    }

    @Test func theFileIsRewrittenEachTimeTheJournalGrowsByTheThreshold() throws {
        let url = try JournalFixtures.journalURL()
        var store: Store? = try Self.open(url, threshold: 10)
        try Self.bump(store!, times: 8)  // 9 events: the type, the create, 7 sets
        try Self.settle(store!)
        #expect(try Self.fileVersion(url) == nil)
        try Self.bump(store!)  // the 10th event
        try Self.settle(store!)
        #expect(try Self.fileVersion(url) == 9)
        #expect(store!.checkpoints.fileStatus == .written(version: 9))
        try Self.bump(store!, times: 9)
        try Self.settle(store!)
        #expect(try Self.fileVersion(url) == 9, "9 events beyond the file: not yet")
        try Self.bump(store!)
        try Self.settle(store!)
        #expect(try Self.fileVersion(url) == 19)
        // Closing starts no write for the short tail…
        try Self.bump(store!, times: 3)
        let expected = store!.committedState()
        try store!.close()
        #expect(try Self.fileVersion(url) == 19)
        store = nil
        // …which the next open folds after loading the file.
        let reopened = try Self.open(url, threshold: 10)
        #expect(reopened.checkpoints.fileStatus == .loaded(version: 19))
        #expect(reopened.committedState().isContentEqual(expected))
        #expect(try Self.leftovers(url).isEmpty)
    }

    @Test func commitsDoNotWaitForTheFileAndABurstLeadsToOneMoreWrite() throws {
        let url = try JournalFixtures.journalURL()
        let store = try Self.open(url, threshold: 1)
        let (release, writes) = try Self.stallingTheFirstWrite(of: store)
        // The file's write is stalled; commits go on regardless.
        let clock = ContinuousClock()
        let start = clock.now
        try Self.bump(store, times: 20)
        #expect(clock.now - start < .seconds(10), "commits waited for the checkpoint file")
        release.signal()
        try Self.settle(store)
        // The first write, then one for all 20 commits made during it.
        #expect(writes.withLock { $0 } == 2)
        #expect(try Self.fileVersion(url) == 21)
        #expect(store.checkpointFile.failures == 0)
    }

    @Test func droppingTheStoreWaitsForTheWriteInProgressAndReleasesTheJournal() throws {
        let url = try JournalFixtures.journalURL()
        var store: Store? = try Self.open(url, threshold: 1)
        let entered = DispatchSemaphore(value: 0)
        store!.checkpointFile.backgroundFault.withLock {
            $0 = { step in
                guard step == .wroteTemporary else { return }
                entered.signal()
                Thread.sleep(forTimeInterval: 0.3)
            }
        }
        try Self.bump(store!)
        try #require(entered.wait(timeout: .now() + 20) == .success, "the background write never started")
        let expected = store!.committedState()
        store = nil  // while the write holds the journal
        // The journal is free again and the file is whole.
        let reopened = try Self.open(url, threshold: 1)
        #expect(reopened.checkpoints.fileStatus == .loaded(version: 1))
        #expect(reopened.committedState().isContentEqual(expected))
    }

    /// Opening a journal with no checkpoint file writes one in the
    /// background, once open; a store dropped at once still leaves it.
    @Test func openingWritesTheFileInTheBackgroundAndDroppingTheStoreStillLeavesIt() throws {
        let url = try JournalFixtures.journalURL()
        do {
            var configuration = Store.Configuration(fileURL: url, durability: .none)
            configuration.checkpoints = .init(usesFile: false)
            let store = try Store(configuration: configuration)
            try Self.bump(store, times: 40)
            try store.close()
        }
        #expect(try Self.fileVersion(url) == nil)
        let expected = try Store.fold(Journal(contentsOf: url))
        _ = try Self.open(url, threshold: 10)  // dropped at once
        #expect(try Self.fileVersion(url) == 40)
        let reopened = try Self.open(url, threshold: 10)
        #expect(reopened.checkpoints.fileStatus == .loaded(version: 40))
        #expect(reopened.committedState().isContentEqual(expected))
    }

    /// The write opening asks for runs even when the store is closed
    /// before it starts (here: while another write holds the queue);
    /// the writes commits ask for do not.
    @Test func closingWaitsForTheWriteOpeningAskedForEvenBeforeItStarts() throws {
        let url = try JournalFixtures.journalURL()
        let store = try Self.open(url, threshold: 1)
        let closed = DispatchSemaphore(value: 0)
        let (release, writes) = try Self.stallingTheFirstWrite(of: store)
        // Queued behind the stalled write, as opening's write would be.
        store.checkpointFile.writeAfterOpening()
        try Self.bump(store, times: 3)
        DispatchQueue.global().async {
            try? store.close()
            closed.signal()
        }
        let deadline = ContinuousClock.now + .seconds(20)
        while !store.checkpointFile.isStopped, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        try #require(store.checkpointFile.isStopped)
        release.signal()
        try #require(closed.wait(timeout: .now() + 20) == .success, "closing did not finish")
        // The stalled write, then opening's (of the newest state), and no more.
        #expect(writes.withLock { $0 } == 2)
        #expect(try Self.fileVersion(url) == 4)
    }

    @Test func compactionIsFollowedByAFileForTheNewJournal() throws {
        let url = try JournalFixtures.journalURL()
        var store: Store? = try Self.open(url, threshold: 1_000_000)
        try Self.bump(store!, times: 30)
        try store!.writeCheckpoint()
        try store!.compact()
        try Self.settle(store!)
        let expected = store!.committedState()
        store = nil
        // Without a new file the old one (another file identifier) would be
        // rejected and the whole journal folded.
        let reopened = try Self.open(url, threshold: 1_000_000)
        #expect(reopened.checkpoints.fileStatus == .loaded(version: 30))
        #expect(reopened.committedState().isContentEqual(expected))
    }

    @Test func aFailingWriteCostsOnlyTheCacheAndIsRetriedAfterTheThreshold() throws {
        let url = try JournalFixtures.journalURL()
        let store = try Self.open(url, threshold: 5)
        let failing = Locked(true)
        store.checkpointFile.backgroundFault.withLock {
            $0 = { (step) throws(JournalError) in
                if step == .syncedTemporary, failing.withLock({ $0 }) {
                    throw .io(operation: "simulated failure", errno: EIO, path: "")
                }
            }
        }
        try Self.bump(store, times: 4)  // 5 events: the type, the create, 3 sets
        try Self.settle(store)
        #expect(store.checkpointFile.failures == 1)
        try Self.bump(store, times: 4)
        try Self.settle(store)
        #expect(store.checkpointFile.failures == 1, "not retried after every commit")
        try Self.bump(store)
        try Self.settle(store)
        #expect(store.checkpointFile.failures == 2, "retried once as many events again were committed")
        #expect(try Self.fileVersion(url) == nil)
        #expect(try Self.leftovers(url).count <= 1, "each write removes what the last one left")
        // Commits were unaffected, and the journal is whole.
        #expect(store.version == 9)
        #expect(try Journal(contentsOf: url).lastVersion == 9)
        failing.withLock { $0 = false }
        try Self.bump(store, times: 5)
        try Self.settle(store)
        #expect(try Self.fileVersion(url) == 14)
        #expect(try Self.leftovers(url).isEmpty)
    }

    /// An explicit write right after the write an open asked for (or any
    /// write of the same version) writes nothing more: the file holds that
    /// version already. Once the file is gone, or the journal has grown,
    /// it is written again.
    @Test func writingTheVersionTheFileHoldsWritesNothing() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let store = try Self.open(url, threshold: 1_000)
            try Self.bump(store, times: 3)
        }
        let store = try Self.open(url, threshold: 1)  // opening asks for the file
        try Self.settle(store)
        #expect(try Self.fileVersion(url) == 3)
        let steps = Locked(0)
        let counting: CheckpointFileWriter.StepHook = { _ in steps.withLock { $0 += 1 } }
        try store.writeCheckpoint(afterStep: counting)
        #expect(steps.withLock { $0 } == 0, "the file holds version 3 already")
        try FileManager.default.removeItem(at: CheckpointFile.url(for: url))
        try store.writeCheckpoint(afterStep: counting)
        #expect(steps.withLock { $0 } > 0, "a missing file is written again")
        #expect(try Self.fileVersion(url) == 3)
        steps.withLock { $0 = 0 }
        try store.writeCheckpoint(afterStep: counting)
        #expect(steps.withLock { $0 } == 0)
        store.checkpointFile.backgroundFault.withLock { $0 = nil }
        try Self.bump(store)
        try Self.settle(store)
        #expect(try Self.fileVersion(url) == 4)
    }
}
