import Foundation
import Testing
@testable import Chronicle

/// Helpers shared by the journal tests.
enum JournalFixtures {
    /// A fresh, empty directory under the system temporary directory.
    static func temporaryDirectory(_ name: String = #function) throws -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("chronicle-tests-\(safe)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A journal path in a fresh directory.
    static func journalURL(_ name: String = #function) throws -> URL {
        try temporaryDirectory(name).appendingPathComponent("test.journal")
    }

    /// A deterministic commit whose content depends on `version` and `payload`
    /// (the length of one string value).
    static func commit(_ version: UInt64, payload: Int = 16, events: Int = 1) -> Commit {
        let text = String(repeating: Character(UnicodeScalar(UInt8(97 + version % 26))), count: payload)
        var list: [Event] = []
        for index in 0..<events {
            list.append(.set(table: index % 3, key: ObjectKey(Int64(version)), property: index, value: .string(text)))
        }
        return Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)),
                      label: version % 2 == 0 ? "commit \(version)" : nil,
                      metadata: version % 3 == 0 ? ["by": "tests", "n": "\(version)"] : [:], events: list)
    }

    /// Every commit of a journal, or the error that stopped reading.
    static func readAll(_ journal: Journal, from version: UInt64 = 1) throws -> [Commit] {
        var reader = journal.reader(from: version)
        var commits: [Commit] = []
        while let commit = try reader.next() { commits.append(commit) }
        return commits
    }

    static func bytes(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    static func write(_ bytes: [UInt8], to url: URL) throws { try Data(bytes).write(to: url) }

    /// The error a throwing expression threw, if it was a ``JournalError``.
    static func journalError<T>(_ body: () throws -> T) -> JournalError? {
        do { _ = try body(); return nil } catch { return error as? JournalError }
    }
}
