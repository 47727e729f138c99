#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The steps of replacing a journal file (``Journal/replaceFile(at:baseVersion:commits:afterStep:)``),
/// named for the fault-injection seam that stops after each one.
enum JournalReplacementStep: Int, CaseIterable, Sendable {
    /// The new journal is written to a temporary file next to the old one.
    case wroteTemporary
    /// The temporary file is synced (data and size).
    case syncedTemporary
    /// The temporary file is renamed over the journal.
    case renamed
    /// The directory is synced: the rename is durable.
    case syncedDirectory
}

extension Journal {
    /// Writes `commits` as a whole new journal whose first commit is
    /// `baseVersion + 1`, and puts it in place of the file at `url`
    /// atomically: write a temporary file in the same directory, sync it,
    /// rename it over `url`, sync the directory. A crash at any point leaves
    /// at `url` either the old journal or the new one, whole (a leftover
    /// temporary file, `.<name>.replacing-<uuid>`, is never read).
    ///
    /// `afterStep` is a test seam: called after each step, it may throw to
    /// stop there as a crash would (nothing is cleaned up then).
    ///
    /// - Returns: whether the rename happened (the new journal is in place).
    /// - Complexity: O(size of the commits).
    @discardableResult
    static func replaceFile(at url: URL, baseVersion: UInt64, commits: [Commit],
                            afterStep: ((JournalReplacementStep) throws(JournalError) -> Void)? = nil) throws(JournalError) -> Bool {
        for (index, commit) in commits.enumerated() where commit.version != baseVersion + 1 + UInt64(index) {
            throw .versionMismatch(expected: baseVersion + 1 + UInt64(index), found: commit.version)
        }
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".replacing-" + UUID().uuidString
        let file = try JournalFile.createExclusively(temporary)
        var renamed = false
        var keepTemporary = false
        defer {
            if !renamed && !keepTemporary { unlink(temporary) }
        }
        func step(_ done: JournalReplacementStep) throws(JournalError) {
            do throws(JournalError) {
                try afterStep?(done)
            } catch {
                keepTemporary = true // as a crash would leave it
                throw error
            }
        }
        // Header and records, written in chunks of about 1 MiB.
        var buffer = JournalFormat.makeHeader(baseVersion: baseVersion)
        var offset = 0
        func flush() throws(JournalError) {
            try buffer.withBytes { raw throws(JournalError) in try file.write(raw, at: offset) }
            offset += buffer.count
            buffer.removeAll(keepingCapacity: true)
        }
        for commit in commits {
            buffer += try JournalFormat.encodeRecord(commit)
            if buffer.count >= 1 << 20 { try flush() }
        }
        try flush()
        try step(.wroteTemporary)
        try file.fullSync()
        try step(.syncedTemporary)
        guard rename(temporary, url.path) == 0 else { throw .io(operation: "rename", errno: errno, path: url.path) }
        renamed = true
        try step(.renamed)
        try JournalFile.syncDirectory(directory)
        try step(.syncedDirectory)
        return true
    }
}
