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

    /// Calls `body` with each commit that other processes append after
    /// `version`, as they append them, and `batchDone` after each batch;
    /// returns only by throwing (the process ends when interrupted).
    /// Standard output is flushed after each batch, so that a pipe or a file
    /// sees the lines at once. Waiting costs nothing: the journal wakes on a
    /// file-change notification (``Journal/waitForCommits(after:timeout:)``).
    ///
    /// A reader holds no lock, so another process may compact the journal
    /// (`Store.compact()` renames a new file over it) while this follows.
    /// Each second without commits, the path is checked: when it names
    /// another file, following goes on in the new one, after a note on
    /// standard error. When the new file's snapshot holds commits this had
    /// not printed yet (it fell behind before the compaction), it stops with
    /// an error saying so rather than skip them silently.
    static func follow(_ journal: Journal, path: String, after version: UInt64,
                       _ body: (Commit) throws(CLIError) -> Void, batchDone: () -> Void = {}) throws(CLIError) -> Never {
        var journal = journal
        var file = FileIdentity(path)
        var seen = version
        allowInterruption()
        fflush(nil)
        while true {
            let woken: Bool
            do { woken = try journal.waitForCommits(after: seen, timeout: .seconds(1)) } catch { throw CLIError.from(error, path: path) }
            if !woken {
                let now = FileIdentity(path)
                guard now != file, now != nil else { continue }
                journal = try open(path)
                file = now
                guard journal.baseVersion + 1 <= seen else {
                    throw .failed("\(path) was compacted into a snapshot at version \(journal.baseVersion + 1) while --follow had read up to \(seen); commits \(seen + 1)...\(journal.baseVersion + 1) are now only in the snapshot: run the command again")
                }
                FileHandle.standardError.write(Data("chronicle: \(path) was compacted (history before version \(journal.baseVersion + 1) is a snapshot now); following the new file\n".utf8))
                continue
            }
            var reader = journal.reader(from: seen + 1)
            while true {
                let next: Commit?
                do { next = try reader.next() } catch { throw CLIError.from(error, path: path) }
                guard let commit = next else { break }
                try body(commit)
                seen = commit.version
            }
            batchDone()
            fflush(nil)
        }
    }

    /// Which file a path names (device and inode), to see a file renamed over it.
    private struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64

        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
        }
    }

    /// Unblocks `SIGINT`, `SIGTERM` and `SIGHUP` on this thread, so that
    /// following ends when interrupted even if the process was started with
    /// them blocked (a child inherits its launcher thread's signal mask, and
    /// some launchers, dispatch worker threads among them, block them).
    /// Signals a launcher *ignores* stay ignored, as `nohup` intends.
    private static func allowInterruption() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signal in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&signals, signal) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
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
