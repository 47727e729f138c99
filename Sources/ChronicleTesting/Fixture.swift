import Chronicle
import Foundation

/// A recorded journal a test starts from: found in a bundle's resources or
/// in the `Fixtures` folder next to the test file, read as JSON Lines
/// (`.jsonl`) or as a binary journal (any other name).
///
/// Made by ``Testing/Trait/freshStore(journal:bundle:seed:clockStart:clockStep:filePath:)``
/// and recorded by ``Chronicle/Store/recordFixture(_:filePath:)``.
enum Fixture {
    /// The folder next to a test file that holds its fixtures.
    static let folderName = "Fixtures"

    /// Where `name` is: a resource of `bundle` (at its top or in a
    /// `Fixtures` folder), or without a bundle `Fixtures/<name>` next to
    /// `filePath`.
    static func locate(_ name: String, bundle: Bundle?, filePath: String) -> Result<URL, FixtureError> {
        if let bundle {
            let found = bundle.url(forResource: name, withExtension: nil)
                ?? bundle.url(forResource: name, withExtension: nil, subdirectory: folderName)
            return found.map { .success($0) } ?? .failure(.notInBundle(name: name, bundle: bundle.bundleURL.path))
        }
        let url = folder(besides: filePath).appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: url.path) ? .success(url) : .failure(.notFound(url.path))
    }

    static func folder(besides filePath: String) -> URL {
        URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent(folderName)
    }

    static func isJSONLines(_ url: URL) -> Bool { url.pathExtension == "jsonl" }

    /// The journal at `url`, in memory (JSON Lines) or opened read-only (binary).
    static func load(_ url: URL) throws -> Journal {
        guard isJSONLines(url) else { return try Journal(contentsOf: url) }
        let journal = Journal.inMemory(durability: .none)
        try journal.importJSONLines(from: url)
        return journal
    }

    /// A fresh-store scope whose store is `journal` replayed, on a clock
    /// that starts at `clockStart` or one step after the journal's last
    /// commit, whichever is later — so new commits come after the recorded ones.
    static func makeScope(_ journal: Journal, seed: UInt64, clockStart: Date, clockStep: Duration) throws -> TestStore.Scope {
        var start = clockStart
        var reader = journal.reader(from: journal.lastVersion)
        if journal.lastVersion > 0, let last = try reader.next() {
            let (seconds, attoseconds) = clockStep.components
            start = max(start, last.timestamp.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18))
        }
        let clock = TestClock(start: start, step: clockStep)
        let replay = try Store.replaying(journal, clock: clock.timestamp)
        return TestStore.Scope(store: replay.store, clock: clock, identifiers: SeededIdentifiers(seed: seed, timestamp: start))
    }

    /// A seed for a fixture's test that differs from the one it was
    /// recorded with (almost surely), so new identifiers do not collide
    /// with recorded ones: a digest of the file.
    static func seed(of url: URL) throws -> UInt64 {
        ValueText.fnv1a(try Data(contentsOf: url))
    }
}

/// Why a fixture journal could not be found.
public enum FixtureError: Error, CustomStringConvertible, Sendable {
    /// The bundle has no resource of that name.
    case notInBundle(name: String, bundle: String)
    /// No file at the path next to the test file.
    case notFound(String)

    /// What is missing and how to provide it.
    public var description: String {
        switch self {
        case let .notInBundle(name, bundle):
            "ChronicleTesting: no fixture journal \(name) in the bundle \(bundle); add it to the test target's resources "
                + "(resources: [.copy(\"\(Fixture.folderName)\")]) or record it with store.recordFixture(\"\(name)\")"
        case let .notFound(path):
            "ChronicleTesting: no fixture journal at \(path); record it with store.recordFixture(\"\(URL(fileURLWithPath: path).lastPathComponent)\")"
        }
    }
}

extension Store {
    /// Writes the store's journal as a fixture a test can start from with
    /// ``Testing/Trait/freshStore(journal:bundle:seed:clockStart:clockStep:filePath:)``:
    /// `Fixtures/<name>` next to the calling test file, as JSON Lines when
    /// `name` ends in `.jsonl` (readable, diffable) and as a binary journal
    /// otherwise.
    ///
    /// ```swift
    /// try store.recordFixture("bank.jsonl")
    /// ```
    ///
    /// An existing file is replaced.
    ///
    /// - Parameters:
    ///   - name: The fixture's file name.
    ///   - filePath: The test file; the fixture goes in the `Fixtures` folder next to it.
    /// - Returns: Where the fixture was written.
    /// - Throws: When the journal cannot be read or the file written.
    @discardableResult
    public func recordFixture(_ name: String, filePath: String = #filePath) throws -> URL {
        let url = Fixture.folder(besides: filePath).appendingPathComponent(name)
        try recordFixture(to: url)
        return url
    }

    /// Writes the store's journal to `url`, as JSON Lines when its extension
    /// is `jsonl` and as a binary journal otherwise; see ``recordFixture(_:filePath:)``.
    ///
    /// - Throws: When the journal cannot be read or the file written.
    public func recordFixture(to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: url.path) { try FileManager.default.removeItem(at: url) }
        guard !Fixture.isJSONLines(url) else {
            try journalForReading.exportJSONLines(to: url)
            return
        }
        let copy = try Journal(fileURL: url, durability: .none)
        var reader = journalForReading.reader(from: 1)
        while let commit = try reader.next() { try copy.append(commit) }
        try copy.close()
    }
}
