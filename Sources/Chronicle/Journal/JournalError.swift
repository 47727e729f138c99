#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Everything that can go wrong when opening, appending to or reading a ``Journal``.
///
/// Every case says what happened and what to do about it in its
/// ``description``. Opening errors (``notAJournal(_:)``, ``emptyFile(_:)``,
/// ``unsupportedFormatVersion(found:supported:)``, ``writtenByNewerVersion(version:offset:detail:)``,
/// ``damaged(offset:lastGoodVersion:reason:)``, ``locked(_:)``) never modify the file.
public enum JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not start with the journal's magic bytes: it is some other kind of file.
    case notAJournal(URL)
    /// The file exists but holds no bytes. Chronicle creates journals atomically (header
    /// included), so an empty file was not made by Chronicle.
    case emptyFile(URL)
    /// The journal was written by a newer format than this build of Chronicle reads.
    case unsupportedFormatVersion(found: UInt16, supported: UInt16)
    /// The commit of `version` (the record at byte `offset`) was written by
    /// a newer version of Chronicle: its checksum matches, but it holds an
    /// event kind, value type or schema attribute this build does not know
    /// (`detail` says which). Newer Chronicles add such kinds without
    /// raising the journal's format version, so this, not
    /// ``unsupportedFormatVersion(found:supported:)``, is how an old build
    /// meets them. It is not damage: nothing is cut or skipped, and the
    /// file is left unchanged.
    case writtenByNewerVersion(version: UInt64, offset: UInt64, detail: String)
    /// The journal is damaged before its end: a record at byte `offset` is invalid
    /// and valid data follows it. Versions `1...lastGoodVersion` are intact.
    case damaged(offset: UInt64, lastGoodVersion: UInt64, reason: String)
    /// Another writer (another process, or another ``Journal`` in this process)
    /// holds the journal's exclusive lock; or, opening exclusively, others
    /// share the journal (stores, ``Journal/init(sharedFileURL:durability:)``).
    case locked(URL)
    /// An appended commit does not carry the next version.
    case versionMismatch(expected: UInt64, found: UInt64)
    /// An encoded commit is larger than a record may be.
    case commitTooLarge(bytes: Int, limit: Int)
    /// A write failed because the disk, the file-size limit or the quota is exhausted
    /// (`ENOSPC`, `EFBIG`, `EDQUOT`). The journal is failed from then on.
    case diskFull(path: String, errno: Int32)
    /// A system call failed.
    case io(operation: String, errno: Int32, path: String)
    /// An earlier write or sync failed, so the journal accepts no more appends
    /// (a failed `fsync` is never retried). Reads keep working.
    case failed(reason: String)
    /// The journal was opened with ``Journal/init(contentsOf:)`` and cannot be appended to.
    case readOnly(URL)
    /// The journal was closed.
    case closed

    /// What happened, and what to do about it.
    public var description: String {
        switch self {
        case .notAJournal(let url):
            "\(url.path) is not a Chronicle journal: it does not start with the journal's magic bytes. "
                + "Check the path; Chronicle never writes to a file it does not recognise."
        case .emptyFile(let url):
            "\(url.path) is empty (0 bytes), so it is not a journal. Chronicle creates journals with their "
                + "header in one atomic step, so something else made this file; remove it if it is not needed and open again."
        case .unsupportedFormatVersion(let found, let supported):
            "the journal uses format version \(found), but this build of Chronicle reads format version \(supported) "
                + "at most. Open it with a newer Chronicle."
        case .writtenByNewerVersion(let version, let offset, let detail):
            "version \(version) of the journal (the record at byte \(offset)) was written by a newer version of Chronicle: "
                + "it holds what this build does not know (\(detail)). Open the journal with a newer Chronicle. "
                + "It is not damage: Chronicle left the file unchanged, and never cuts or skips such a record."
        case .damaged(let offset, let lastGoodVersion, let reason):
            "the journal is damaged at byte \(offset), after version \(lastGoodVersion): \(reason). "
                + "Versions 1...\(lastGoodVersion) are intact; Chronicle does not skip damage and left the file unchanged. "
                + "Restore the journal from a backup, or keep its first \(offset) bytes (the intact prefix) as a new journal."
        case .locked(let url):
            "\(url.path) is already open for writing (by another process or another Journal in this process), and one of "
                + "the two opens is exclusive (Journal(fileURL:), or a Chronicle from before stores shared their file): "
                + "close the other writer first, open both shared (as stores do), or read the journal with Journal(contentsOf:), "
                + "which takes no lock."
        case .versionMismatch(let expected, let found):
            "commit version \(found) does not follow the journal: the next version must be \(expected). "
                + "Versions are gap-free; serialise writers and number commits lastVersion + 1."
        case .commitTooLarge(let bytes, let limit):
            "the commit encodes to \(bytes) bytes, more than the \(limit) bytes a journal record may hold. "
                + "Split the change into several commits."
        case .diskFull(let path, let code):
            "writing to \(path) failed: \(Self.message(code)) (errno \(code)). The journal is failed and takes no more "
                + "appends; free disk space (or raise the quota or file-size limit) and reopen it. Commits made before are intact."
        case .io(let operation, let code, let path):
            "\(operation) on \(path) failed: \(Self.message(code)) (errno \(code))."
        case .failed(let reason):
            "the journal failed earlier and accepts no more appends (\(reason)). Reads still work; reopen the journal "
                + "to continue: it then holds every commit that reached the disk, and never part of one."
        case .readOnly(let url):
            "\(url.path) was opened read-only with Journal(contentsOf:); open it with Journal(fileURL:durability:) to append."
        case .closed:
            "the journal is closed; open it again to use it."
        }
    }

    /// Whether this is ``writtenByNewerVersion(version:offset:detail:)``.
    var isWrittenByNewerVersion: Bool {
        if case .writtenByNewerVersion = self { true } else { false }
    }

    static func message(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "unknown error" }
        return String(cString: text)
    }
}
