import Chronicle
import Foundation

/// Opening journals for reading, and streaming their commits, with the
/// CLI's errors and progress.
enum JournalInput {
    /// Opens the journal at `path` read-only (no lock, never modified).
    static func open(_ path: String) throws(CLIError) -> Journal {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .missingFile("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw .failed("\(path) is a directory, not a journal") }
        do {
            return try Journal(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIError.from(error, path: path)
        }
    }

    /// Calls `body` with every commit `from...through`, streaming, with progress.
    static func forEach(_ journal: Journal, path: String, from: UInt64 = 1, through: UInt64? = nil, what: String,
                        _ body: (Commit) throws(CLIError) -> Void) throws(CLIError) {
        let last = min(through ?? journal.lastVersion, journal.lastVersion)
        var progress = Progress(what, total: last)
        defer { progress.done() }
        var reader = journal.reader(from: from)
        while reader.nextVersion <= last {
            let next: Commit?
            do { next = try reader.next() } catch { throw CLIError.from(error, path: path) }
            guard let commit = next else { return }
            try body(commit)
            progress.update(commit.version)
        }
    }

    /// The state at `version` and the commit that made it, folded with progress.
    static func state(_ journal: Journal, path: String, at version: UInt64) throws(CLIError) -> StoreState {
        guard version <= journal.lastVersion else {
            throw .usage("version \(version) does not exist; \(path) has versions 0...\(journal.lastVersion)")
        }
        var state = StoreState()
        try forEach(journal, path: path, through: version, what: "folding") { (commit) throws(CLIError) in
            do { state = try state.applying(commit).state } catch {
                throw .damaged("\(path): commit \(commit.version) does not fold: \(error)")
            }
        }
        return state
    }

    /// Checks a version argument against the journal.
    static func check(_ version: UInt64, _ journal: Journal, path: String) throws(CLIError) {
        guard version <= journal.lastVersion else {
            throw .usage("version \(version) does not exist; \(path) has versions 0...\(journal.lastVersion)")
        }
    }
}
