import Chronicle
import ChronicleTesting
import Foundation
import Testing

@Suite("Journal snapshots", .freshStore)
struct JournalSnapshotTests {
    let store = TestStore.current

    func write() throws {
        let ann = contact("Ann", age: 30)
        try store.write(label: "add") { store.add(ann) }
        try store.write(label: "birthday") { ann.age += 1 }
    }

    /// A test file in a new temporary folder, so failing cases write their
    /// snapshots and actual files there, not in the package.
    static func temporaryTestFile() -> (file: String, snapshots: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)")
        return (directory.appendingPathComponent("SomeTests.swift").path,
                directory.appendingPathComponent("__Snapshots__/SomeTests"))
    }

    @Test func aJournalMatchesItsCheckedInSnapshot() throws {
        try write()
        expectJournal(store.journalForReading, matchesSnapshot: "ann")
    }

    @Test func aMissingSnapshotIsRecordedAndFails() throws {
        try write()
        let (testFile, snapshots) = Self.temporaryTestFile()
        defer { try? FileManager.default.removeItem(at: snapshots.deletingLastPathComponent().deletingLastPathComponent()) }
        let recorded = snapshots.appendingPathComponent("first.jsonl")
        withKnownIssue {
            expectJournal(store.journalForReading, matchesSnapshot: "first", filePath: testFile)
        } matching: { issue in
            text(of: issue) == "No journal snapshot at \(recorded.path); recorded it. Review it, check it in, and run the test again."
        }
        #expect(try String(contentsOf: recorded, encoding: .utf8).split(separator: "\n").count == 2)
        // The next run compares against it, and passes.
        expectJournal(store.journalForReading, matchesSnapshot: "first", filePath: testFile)
    }

    @Test func aDifferenceShowsALineDiffWithNamesAndWritesTheActualJournal() throws {
        try write()
        let (testFile, snapshots) = Self.temporaryTestFile()
        defer { try? FileManager.default.removeItem(at: snapshots.deletingLastPathComponent().deletingLastPathComponent()) }
        withKnownIssue { expectJournal(store.journalForReading, matchesSnapshot: "ann", filePath: testFile) }
        try store.write(label: "rename") { store.objects(Contact.self).first!.name = "Anne" }
        let snapshot = snapshots.appendingPathComponent("ann.jsonl"), actual = snapshots.appendingPathComponent("ann.actual.jsonl")
        withKnownIssue {
            expectJournal(store.journalForReading, matchesSnapshot: "ann", filePath: testFile)
        } matching: { issue in
            text(of: issue) == """
                Journal differs from snapshot \(snapshot.path):
                    …
                    version 2 · 2025-01-01T00:00:01.000Z (757382401.0 s since 2001) · label "birthday"
                      set Contact#1.age: 30 → 31
                  + version 3 · 2025-01-01T00:00:02.000Z (757382402.0 s since 2001) · label "rename"
                  +   set Contact#1.name: "Ann" → "Anne"
                The actual journal is at \(actual.path); if the change is intended, \
                move it over the snapshot or re-record with CHRONICLE_RECORD_SNAPSHOTS=1.
                """
        }
        var exported = ""
        try store.journalForReading.exportJSONLines { exported += $0 }
        let written = try String(contentsOf: actual, encoding: .utf8)
        #expect(written == exported)
        // Once the snapshot is updated, the actual file goes away.
        try FileManager.default.removeItem(at: snapshot)
        try FileManager.default.moveItem(at: actual, to: snapshot)
        expectJournal(store.journalForReading, matchesSnapshot: "ann", filePath: testFile)
        #expect(!FileManager.default.fileExists(atPath: actual.path))
    }

    @Test func aChangedValueShowsAsARemovedAndAnAddedLine() throws {
        try write()
        let (testFile, snapshots) = Self.temporaryTestFile()
        defer { try? FileManager.default.removeItem(at: snapshots.deletingLastPathComponent().deletingLastPathComponent()) }
        withKnownIssue { expectJournal(store.journalForReading, matchesSnapshot: "ann", filePath: testFile) }
        let other = try withFreshStore { other in
            let ann = contact("Ann", age: 40)
            try other.write(label: "add") { other.add(ann) }
            try other.write(label: "birthday") { ann.age += 1 }
            return other.journalForReading
        }
        withKnownIssue {
            expectJournal(other, matchesSnapshot: "ann", filePath: testFile)
        } matching: { issue in
            let message = text(of: issue)
            let create = #"create Contact#1 {_id: ObjectId(6774858011fe072fa5000001), name: "Ann", age: AGE, "#
                + "nickname: nil, home: nil, pets: [], tags: {}, scores: [:]}"
            return message.contains("\n  -   \(create.replacingOccurrences(of: "AGE", with: "30"))"
                                    + "\n  +   \(create.replacingOccurrences(of: "AGE", with: "40"))\n")
                && message.contains("\n  -   set Contact#1.age: 30 → 31\n  +   set Contact#1.age: 40 → 41\n")
        }
    }

    @Test func aSnapshotThatIsNotAJournalShowsTheFirstDifferingLine() throws {
        try write()
        let (testFile, snapshots) = Self.temporaryTestFile()
        defer { try? FileManager.default.removeItem(at: snapshots.deletingLastPathComponent().deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: snapshots, withIntermediateDirectories: true)
        try Data("not a journal\n".utf8).write(to: snapshots.appendingPathComponent("odd.jsonl"))
        withKnownIssue {
            expectJournal(store.journalForReading, matchesSnapshot: "odd", filePath: testFile)
        } matching: { issue in
            text(of: issue).contains("odd.jsonl at line 1:\n  expected: not a journal\n  actual:   {\"version\":1,")
        }
    }
}
