import Chronicle
import Foundation
import Testing

/// The environment variable that makes
/// ``expectJournal(_:matchesSnapshot:from:filePath:sourceLocation:)`` re-record
/// its snapshot files instead of comparing: `CHRONICLE_RECORD_SNAPSHOTS=1 swift test`.
public let recordSnapshotsEnvironmentVariable = "CHRONICLE_RECORD_SNAPSHOTS"

/// Compares `journal`, written as JSON Lines (``Chronicle/JSONLines``), with
/// a checked-in snapshot file, recording an issue at the caller that shows
/// the first differing line.
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
/// test file. When it does not exist, or when the environment variable
/// ``recordSnapshotsEnvironmentVariable`` (`CHRONICLE_RECORD_SNAPSHOTS`) is
/// `1`, the journal is written there instead and a warning (not a failure)
/// says so; review the file and commit it. Use the fresh-store trait (or
/// `withFreshStore`) so timestamps and identifiers are the same on every run.
///
/// A mismatch reads:
///
/// ```text
/// Journal differs from snapshot …/__Snapshots__/TodoTests/adopting-a-dog.jsonl at line 3:
///   expected: {"version":3,…"value":"Rex"}}]}
///   actual:   {"version":3,…"value":"Max"}}]}
/// Re-record with CHRONICLE_RECORD_SNAPSHOTS=1.
/// ```
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
    let url = testFile.deletingLastPathComponent()
        .appendingPathComponent("__Snapshots__")
        .appendingPathComponent(testFile.deletingPathExtension().lastPathComponent)
        .appendingPathComponent(name + ".jsonl")
    let record = ProcessInfo.processInfo.environment[recordSnapshotsEnvironmentVariable] == "1"
    if record || !FileManager.default.fileExists(atPath: url.path) {
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            Issue.record("Recorded journal snapshot \(url.path); review it and check it in", severity: .warning,
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
    if let difference = SnapshotDifference(expected: expected, actual: actual) {
        Issue.record(Comment(rawValue: "Journal differs from snapshot \(url.path) \(difference)\n"
                                 + "Re-record with \(recordSnapshotsEnvironmentVariable)=1."),
                     sourceLocation: sourceLocation)
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
