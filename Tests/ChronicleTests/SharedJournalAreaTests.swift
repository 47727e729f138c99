import Foundation
import Testing
@testable import Chronicle

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
        let url = try JournalFixtures.journalURL()
        let file = UUID()
        let a = try SharedJournalArea(journalURL: url), b = try SharedJournalArea(journalURL: url)
        a.adopt(fileID: file, syncedEnd: 64)
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
        let url = try JournalFixtures.journalURL()
        let file = UUID()
        let a = try SharedJournalArea(journalURL: url), b = try SharedJournalArea(journalURL: url)
        a.adopt(fileID: file, syncedEnd: 64)
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
