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

    @Test func aJournalMatchesItsCheckedInSnapshot() throws {
        try write()
        expectJournal(store.journalForReading, matchesSnapshot: "ann")
    }

    @Test func aDifferenceShowsTheFirstDifferingLine() throws {
        try write()
        try store.write(label: "rename") { store.objects(Contact.self).first!.name = "Anne" }
        withKnownIssue {
            expectJournal(store.journalForReading, matchesSnapshot: "ann")
        } matching: { issue in
            let message = text(of: issue)
            return message.contains("__Snapshots__/JournalSnapshotTests/ann.jsonl at line 3:")
                && message.contains("\n  expected: (end of file)\n")
                && message.contains(#"\#n  actual:   {"version":3,"timestamp":757382402.0,"label":"rename""#)
                && message.hasSuffix("Re-record with CHRONICLE_RECORD_SNAPSHOTS=1.")
        }
    }

    @Test func aMissingSnapshotIsRecordedWithAWarning() throws {
        try write()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("snapshots-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let testFile = directory.appendingPathComponent("SomeTests.swift").path
        // A warning is not a failure; the run passes.
        expectJournal(store.journalForReading, matchesSnapshot: "first", filePath: testFile)
        let recorded = directory.appendingPathComponent("__Snapshots__/SomeTests/first.jsonl")
        let recordedText = try String(contentsOf: recorded, encoding: .utf8)
        #expect(recordedText.split(separator: "\n").count == 2)
        // The second run compares against it.
        expectJournal(store.journalForReading, matchesSnapshot: "first", filePath: testFile)
        try store.write { store.add(Contact()) }
        withKnownIssue {
            expectJournal(store.journalForReading, matchesSnapshot: "first", filePath: testFile)
        } matching: { issue in
            text(of: issue).contains("at line 3:\n  expected: (end of file)\n  actual:   {\"version\":3")
        }
    }
}
