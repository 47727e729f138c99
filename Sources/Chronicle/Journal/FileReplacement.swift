#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The steps of replacing a file atomically (``FileReplacement/replace(at:afterStep:write:)``),
/// named for the fault-injection seam that stops after each one.
enum FileReplacementStep: Int, CaseIterable, Sendable {
    /// The new contents are written to a temporary file next to the old one.
    case wroteTemporary
    /// The temporary file is synced (data and size).
    case syncedTemporary
    /// The temporary file is renamed over the file.
    case renamed
    /// The directory is synced: the rename is durable.
    case syncedDirectory
}

/// Puts new contents in place of a file so that a crash at any moment leaves
/// the old file or the new one, whole: the one way Chronicle replaces a
/// journal (compaction) or its checkpoint file.
enum FileReplacement {
    /// The name prefix of the temporary files made while replacing `url`:
    /// `.<name>.replacing-`, then a UUID. The dot hides them, and no reader
    /// ever opens them.
    static func temporaryPrefix(for url: URL) -> String { "." + url.lastPathComponent + ".replacing-" }

    /// Writes a new file with `write` and puts it in place of `url`: write a
    /// temporary file in the same directory (so the rename cannot cross file
    /// systems), sync it, rename it over `url`, sync the directory.
    ///
    /// Without the first sync a crash after the rename could leave a
    /// renamed but empty or partial file; without the last, the rename
    /// itself could be lost. On an error the temporary file is removed.
    ///
    /// `afterStep` is a test seam: called after each step, it may throw to
    /// stop there as a crash would (nothing is cleaned up then).
    ///
    /// - Complexity: that of `write`, plus two syncs.
    static func replace(at url: URL, afterStep: ((FileReplacementStep) throws(JournalError) -> Void)? = nil,
                        write: (JournalFile) throws(JournalError) -> Void) throws(JournalError) {
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/" + temporaryPrefix(for: url) + UUID().uuidString
        let file = try JournalFile.createExclusively(temporary)
        var renamed = false
        var keepTemporary = false
        defer {
            if !renamed && !keepTemporary { unlink(temporary) }
        }
        func step(_ done: FileReplacementStep) throws(JournalError) {
            do throws(JournalError) {
                try afterStep?(done)
            } catch {
                keepTemporary = true // as a crash would leave it
                throw error
            }
        }
        try write(file)
        try step(.wroteTemporary)
        try file.fullSync()
        try step(.syncedTemporary)
        guard rename(temporary, url.path) == 0 else { throw .io(operation: "rename", errno: errno, path: url.path) }
        renamed = true
        try step(.renamed)
        try JournalFile.syncDirectory(directory)
        try step(.syncedDirectory)
    }

    /// Removes the temporary files an interrupted replacement of `url` left.
    ///
    /// Only for a caller that alone replaces `url` (one holding the
    /// journal's writer lock): another process's replacement in progress
    /// would lose its temporary file and fail.
    static func removeLeftovers(of url: URL) {
        let directory = url.deletingLastPathComponent()
        let prefix = temporaryPrefix(for: url)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) {
            unlink(directory.appendingPathComponent(name).path)
        }
    }
}
