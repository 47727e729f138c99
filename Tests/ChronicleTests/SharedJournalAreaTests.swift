import Foundation
import Synchronization
import Testing
@testable import Chronicle

/// Two areas on one new journal's file, standing for two processes, and
/// the identifier of the file the first adopted (its data synced to 64).
func twoProcesses(gatherWindowLimit: Duration = GroupCommit.maxGatherWindow) throws
    -> (a: SharedJournalArea, b: SharedJournalArea, file: UUID) {
    let url = try JournalFixtures.journalURL()
    let file = UUID()
    let a = try SharedJournalArea(journalURL: url, gatherWindowLimit: gatherWindowLimit)
    let b = try SharedJournalArea(journalURL: url, gatherWindowLimit: gatherWindowLimit)
    a.adopt(fileID: file, syncedEnd: 64)
    return (a, b, file)
}

/// The words processes sharing a journal keep next to it: two areas on one
/// file stand for two processes (each maps the file and locks it through a
/// description of its own).
@Suite("The shared area of a journal")
struct SharedJournalAreaTests {
    /// Counts the syncs `syncCovering` asks for.
    final class Syncs: @unchecked Sendable {
        // Safety: used from the test's thread only.
        var count = 0
        func sync() throws(JournalError) { count += 1 }
    }

    @Test func aSyncCoversWhatAnyProcessWroteBeforeIt() throws {
        let (a, b, file) = try twoProcesses()
        b.adopt(fileID: file, syncedEnd: 64)
        let syncs = Syncs()
        a.didWrite(upTo: 100)
        b.didWrite(upTo: 150)
        // B syncs for its commit: A's, written before, is covered too.
        try b.syncCovering(150, fileID: file, sync: syncs.sync)
        try a.syncCovering(100, fileID: file, sync: syncs.sync)
        #expect(syncs.count == 1)
        // A commit written after that sync needs one of its own.
        a.didWrite(upTo: 200)
        try a.syncCovering(200, fileID: file, sync: syncs.sync)
        #expect(syncs.count == 2)
        try b.syncCovering(200, fileID: file, sync: syncs.sync)
        #expect(syncs.count == 2)
    }

    @Test func aFailedSyncRecordsNothing() throws {
        let (a, b, file) = try twoProcesses()
        a.didWrite(upTo: 100)
        #expect(throws: JournalError.self) {
            try a.syncCovering(100, fileID: file) { () throws(JournalError) in throw .failed(reason: "disk") }
        }
        let syncs = Syncs()
        try b.syncCovering(100, fileID: file, sync: syncs.sync)
        #expect(syncs.count == 1)
    }

    @Test func endsRecordedForAnotherFileAreNotTrusted() throws {
        let url = try JournalFixtures.journalURL()
        let old = UUID(), new = UUID()
        let a = try SharedJournalArea(journalURL: url), b = try SharedJournalArea(journalURL: url)
        a.adopt(fileID: old, syncedEnd: 10_000)
        let syncs = Syncs()
        // A journal on another file (say, after compaction) syncs for itself...
        try b.syncCovering(100, fileID: new, sync: syncs.sync)
        #expect(syncs.count == 1)
        // ...and once it adopts the area, the old file's ends are gone.
        b.adopt(fileID: new, syncedEnd: 64)
        b.didWrite(upTo: 100)
        try b.syncCovering(100, fileID: new, sync: syncs.sync)
        #expect(syncs.count == 2)
    }

    @Test func countersOnlyGrowAndAreSeenByEveryProcess() throws {
        let url = try JournalFixtures.journalURL()
        let a = try SharedJournalArea(journalURL: url), b = try SharedJournalArea(journalURL: url)
        let beyond = SharedJournalArea.counterCapacity + 3
        for index in [0, 5, beyond] {
            #expect(b.counter(index) == 0)
            a.raiseCounter(index, to: 40)
            b.raiseCounter(index, to: 30)
            #expect(a.counter(index) == 40 && b.counter(index) == 40)
            b.raiseCounter(index, to: 41)
            #expect(a.counter(index) == 41)
        }
    }
}

#if os(Linux)
/// Processes waiting for each other's syncs on futexes (Linux): two areas
/// on one file, used from two threads, stand for two processes.
@Suite("The shared area's gathering and waiting (Linux)")
struct SharedJournalAreaGatheringTests {
    /// Counts syncs from any thread.
    final class Syncs: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func sync() throws(JournalError) { count.withLock { $0 += 1 } }
    }

    @Test func aSyncWaitsForAsManyCommitsAsTheLastSyncSaw() throws {
        let (a, b, file) = try twoProcesses(gatherWindowLimit: .seconds(30))
        let syncs = Syncs()
        a.didWrite(upTo: 100)
        b.didWrite(upTo: 150)
        // This sync sees three commits: two before it, one while it runs
        // (slowly: the next gathering may wait twice as long).
        try a.syncCovering(150, fileID: file) { () throws(JournalError) in
            try syncs.sync()
            b.didWrite(upTo: 200)
            Thread.sleep(forTimeInterval: 0.25)
        }
        #expect(a.gatherTarget == 3)
        // A's next commit finds two unsynced: it waits for a third, which B
        // appends once A gathers, and one sync covers both.
        a.didWrite(upTo: 250)
        let appended = Thread {
            let deadline = Date(timeIntervalSinceNow: 10)
            while !a.isGathering, Date() < deadline { usleep(100) }
            b.didWrite(upTo: 300)
        }
        appended.start()
        try a.syncCovering(250, fileID: file, sync: syncs.sync)
        #expect(syncs.value == 2)
        try b.syncCovering(300, fileID: file, sync: syncs.sync)
        #expect(syncs.value == 2, "B's commit, appended while A gathered, needed a sync of its own")
        #expect(!a.isGathering)
    }

    @Test func commitsOfOneJournalAloneAreNotGatheredFor() throws {
        let (a, b, file) = try twoProcesses()
        // One process's writer threads: its group commit gathered them.
        for end in [100, 150, 200] { a.didWrite(upTo: end) }
        let syncs = Syncs()
        try a.syncCovering(200, fileID: file) { () throws(JournalError) in
            try syncs.sync()
            a.didWrite(upTo: 250)
        }
        #expect(a.gatherTarget == 0)
        // Once another journal appends between them, the next sync counts.
        b.didWrite(upTo: 300)
        a.didWrite(upTo: 350)
        try a.syncCovering(350, fileID: file, sync: syncs.sync)
        #expect(a.gatherTarget == 3)
        #expect(syncs.value == 2)
    }

    @Test func aProcessWaitingForAnothersSyncFindsItsCommitCovered() throws {
        let (a, b, file) = try twoProcesses()
        let syncs = Syncs()
        a.didWrite(upTo: 100)
        b.didWrite(upTo: 150)
        let syncing = DispatchSemaphore(value: 0), finish = DispatchSemaphore(value: 0)
        let first = Thread {
            // A's sync covers B's commit too; it ends only when told.
            try? a.syncCovering(100, fileID: file) { () throws(JournalError) in
                try syncs.sync()
                syncing.signal()
                finish.wait()
            }
        }
        first.start()
        syncing.wait()
        // B finds the lock taken and sleeps until A's sync ends.
        let waited = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            finish.signal()
        }
        waited.start()
        try b.syncCovering(150, fileID: file, sync: syncs.sync)
        #expect(syncs.value == 1)
    }
}
#endif
