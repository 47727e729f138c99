import Chronicle
import Foundation
import Testing

/// The environment variable that makes
/// ``expectJournal(_:matchesSnapshot:from:filePath:sourceLocation:)`` re-record
/// its snapshot files instead of comparing: `CHRONICLE_RECORD_SNAPSHOTS=1 swift test`
/// (each re-recorded snapshot fails its test, so a run with it never passes unnoticed).
public let recordSnapshotsEnvironmentVariable = "CHRONICLE_RECORD_SNAPSHOTS"

/// Compares `journal`, written as JSON Lines (``Chronicle/JSONLines``), with
/// a checked-in snapshot file, recording an issue at the caller that shows
/// the differences, with type and property names.
///
/// ```swift
/// @Test(.freshStore) func adoptingADog() throws {
///     let store = TestStore.current
///     …
///     expectJournal(store.journalForReading, matchesSnapshot: "adopting-a-dog")
/// }
/// ```
///
/// The snapshot is `__Snapshots__/<test file name>/<name>.jsonl` next to the
/// test file. Use the fresh-store trait (or `withFreshStore`) so timestamps
/// and identifiers are the same on every run.
///
/// - When the snapshot does not exist, the journal is recorded there and
///   the test **fails** ("No journal snapshot at …; recorded it"): review
///   the file, check it in, and run again — a never-recorded snapshot
///   cannot pass. So does every snapshot when the environment variable
///   ``recordSnapshotsEnvironmentVariable`` (`CHRONICLE_RECORD_SNAPSHOTS`)
///   is `1`: it re-records them all.
/// - When the journal differs, the actual journal is written beside the
///   snapshot as `<name>.actual.jsonl` (removed again once they match), and
///   the failure shows a line diff of the two journals, each commit as its
///   header and its events as ``Chronicle/Journal/eventDescriptions(from:through:)``
///   prints them:
///
/// ```text
/// Journal differs from snapshot …/__Snapshots__/TodoTests/adopting-a-dog.jsonl:
///     version 2 · 2025-01-01T00:00:01.000Z (757382401.0 s since 2001) · label "add dog"
///   -   create Dog#1 {name: "Rex", age: 3}
///   +   create Dog#1 {name: "Max", age: 3}
/// The actual journal is at …/__Snapshots__/TodoTests/adopting-a-dog.actual.jsonl; if the change is intended,
/// move it over the snapshot or re-record with CHRONICLE_RECORD_SNAPSHOTS=1.
/// ```
///
/// The snapshot folder is inside the test target: exclude it in the
/// package (`exclude: ["__Snapshots__"]`) and check the folder in from the
/// start (with a placeholder file such as `.gitkeep`), so SwiftPM finds
/// what it excludes before the first recording.
///
/// - Parameters:
///   - journal: The journal to compare (a store's `journalForReading`).
///   - name: The snapshot's name, unique within the test file.
///   - from: The first version compared.
///   - filePath: The test file; snapshots live next to it.
///   - sourceLocation: Where a failure is reported; the caller by default.
public func expectJournal(_ journal: Journal, matchesSnapshot name: String, from: UInt64 = 1,
                          filePath: String = #filePath, sourceLocation: SourceLocation = #_sourceLocation) {
    var actual = ""
    do {
        try journal.exportJSONLines(from: from) { actual += $0 }
    } catch {
        Issue.record(error, "Could not write the journal as JSON Lines", sourceLocation: sourceLocation)
        return
    }
    let testFile = URL(fileURLWithPath: filePath)
    let folder = testFile.deletingLastPathComponent()
        .appendingPathComponent("__Snapshots__")
        .appendingPathComponent(testFile.deletingPathExtension().lastPathComponent)
    let url = folder.appendingPathComponent(name + ".jsonl")
    let actualURL = folder.appendingPathComponent(name + ".actual.jsonl")
    let rerecord = ProcessInfo.processInfo.environment[recordSnapshotsEnvironmentVariable] == "1"
    if rerecord || !FileManager.default.fileExists(atPath: url.path) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            try? FileManager.default.removeItem(at: actualURL)
            Issue.record(Comment(rawValue: rerecord
                ? "Re-recorded journal snapshot \(url.path) (\(recordSnapshotsEnvironmentVariable)=1); "
                    + "review it, check it in, and run again without the variable."
                : "No journal snapshot at \(url.path); recorded it. Review it, check it in, and run the test again."),
                         sourceLocation: sourceLocation)
        } catch {
            Issue.record(error, "Could not record the journal snapshot \(url.path)", sourceLocation: sourceLocation)
        }
        return
    }
    let expected: String
    do {
        expected = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    } catch {
        Issue.record(error, "Could not read the journal snapshot \(url.path)", sourceLocation: sourceLocation)
        return
    }
    guard expected != actual else {
        try? FileManager.default.removeItem(at: actualURL)
        return
    }
    var message = "Journal differs from snapshot \(url.path)"
    message += SnapshotRendering.difference(expected: expected, actual: actual, journal: journal, from: from)
    do {
        try Data(actual.utf8).write(to: actualURL)
        message += "\nThe actual journal is at \(actualURL.path); if the change is intended, "
            + "move it over the snapshot or re-record with \(recordSnapshotsEnvironmentVariable)=1."
    } catch {
        message += "\nRe-record with \(recordSnapshotsEnvironmentVariable)=1 (the actual journal could not be written: \(error))."
    }
    Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
}

/// Journals in JSON Lines shown as commits and named events, for diffs.
enum SnapshotRendering {
    /// `:` and the diff of the two journals' renderings, or — when they
    /// cannot be rendered or render alike — ` at line N:` and the first
    /// differing JSON line of each.
    static func difference(expected: String, actual: String, journal: Journal, from: UInt64) -> String {
        var base = EventDescriber(state: StoreState())
        var reader = journal.reader(from: 1)
        while reader.nextVersion < from, let commit = try? reader.next() { base.describe(commit) }
        if let old = lines(expected, base), let new = lines(actual, base), old != new,
           let diff = LineDiff(expected: old, actual: new) {
            return ":\n" + diff.hunks().map { "  " + $0 }.joined(separator: "\n")
        }
        return SnapshotDifference(expected: expected, actual: actual).map { " \($0)" } ?? ""
    }

    /// Each commit's header, then its events indented; `nil` when a line
    /// is not a commit.
    static func lines(_ text: String, _ base: EventDescriber) -> [String]? {
        var describer = base
        var lines: [String] = []
        for (index, line) in text.split(separator: "\n").enumerated() where !line.isEmpty {
            guard let commit = try? JSONLines.decode(String(line), lineNumber: index + 1) else { return nil }
            lines.append(header(commit))
            lines += describer.describe(commit).lines.map { "  " + $0 }
        }
        return lines
    }

    /// `version 3 · 2025-01-01T00:00:02.000Z (757382402.0 s since 2001) · label "rename" · metadata ["id": "7"]`.
    static func header(_ commit: Commit) -> String {
        var parts = ["version \(commit.version)", ValueText.date(commit.timestamp)]
        if let label = commit.label { parts.append("label \(ValueText.string(label))") }
        if !commit.metadata.isEmpty {
            let entries = commit.metadata.sorted { $0.key < $1.key }
                .map { "\(ValueText.string($0.key)): \(ValueText.string($0.value))" }
            parts.append("metadata [\(entries.joined(separator: ", "))]")
        }
        return parts.joined(separator: " · ")
    }
}

/// The first line where two JSON Lines texts differ.
struct SnapshotDifference: CustomStringConvertible {
    let line: Int
    let expected: String?
    let actual: String?

    /// `nil` when the texts are equal.
    init?(expected: String, actual: String) {
        guard expected != actual else { return nil }
        func lines(_ text: String) -> [String] {
            let body = text.hasSuffix("\n") ? text.dropLast() : Substring(text)
            return body.isEmpty ? [] : body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        }
        let old = lines(expected), new = lines(actual)
        // Equal lines but unequal texts: only the final newline differs.
        let index = (0..<min(old.count, new.count)).first { old[$0] != new[$0] } ?? min(old.count, new.count)
        line = index + 1
        self.expected = old.indices.contains(index) ? old[index] : nil
        self.actual = new.indices.contains(index) ? new[index] : nil
    }

    var description: String {
        "at line \(line):\n  expected: \(expected ?? "(end of file)")\n  actual:   \(actual ?? "(end of file)")"
    }
}
