#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension Journal {
    /// The journal's history as one self-contained HTML page: Chronicle Studio.
    ///
    /// The page needs nothing but a browser (no network, no scripts, styles
    /// or fonts from elsewhere) and shows a timeline of the commits, the
    /// objects at any version, an object's history, and the diff between two
    /// versions; <doc:ExploringAJournalInStudio> shows it. It reads the
    /// journal only, and needs none of the app's types: the journal records
    /// its schema.
    ///
    /// Journal contents are embedded as JSON escaped for HTML and shown as
    /// text, never as markup. A commit that cannot be read or does not fold
    /// ends the history the page shows, and the page says so at the top.
    ///
    /// For a large journal, prefer ``writeStudioPage(to:)``, which streams
    /// the page to its file instead of holding it in memory.
    ///
    /// - Complexity: one fold of the journal: O(its events and values), plus
    ///   a snapshot of the state about every time as many values have changed
    ///   as the state holds. The page is about as large as the journal's
    ///   values, and shows any version after folding at most about one
    ///   state's worth of changes.
    public func studioPage() -> String {
        var html: [UInt8] = []
        var writer = StudioJSONWriter { html.append(contentsOf: $0) }
        var builder = StudioPageBuilder(journal: self, title: fileURL?.lastPathComponent ?? "in-memory journal", problems: [])
        builder.write(to: &writer)
        return String(decoding: html, as: UTF8.self)
    }

    /// Writes ``studioPage()`` to `url`, replacing any file there, streaming
    /// it rather than holding it in memory.
    /// - Throws: ``JournalError/io(operation:errno:path:)`` or
    ///   ``JournalError/diskFull(path:errno:)`` when the file cannot be written.
    /// - Complexity: as ``studioPage()``, with memory for one chunk of commits
    ///   and the state.
    public func writeStudioPage(to url: URL) throws(JournalError) {
        try StudioFile.write(to: url) { writer in
            var builder = StudioPageBuilder(journal: self, title: fileURL?.lastPathComponent ?? "in-memory journal", problems: [])
            builder.write(to: &writer)
        }
    }

    /// The Studio page of the journal file at `journalURL`, opened read-only
    /// — even when the file is damaged: the page then shows the intact
    /// versions and reports the damage at the top (where, and why), as
    /// `chronicle verify` does.
    /// - Throws: the errors of ``init(contentsOf:)`` other than
    ///   ``JournalError/damaged(offset:lastGoodVersion:reason:)`` (a file that
    ///   is not a journal, say), and those of ``writeStudioPage(to:)``.
    public static func writeStudioPage(ofJournalAt journalURL: URL, to url: URL) throws(JournalError) {
        let (journal, problems) = try openForStudio(journalURL)
        try StudioFile.write(to: url) { writer in
            var builder = StudioPageBuilder(journal: journal, title: journalURL.lastPathComponent, problems: problems)
            builder.write(to: &writer)
        }
    }

    /// The journal at `url`, or its intact prefix when a record in the middle
    /// is damaged, with the damage described.
    static func openForStudio(_ url: URL) throws(JournalError) -> (Journal, [String]) {
        do {
            return (try Journal(contentsOf: url), [])
        } catch .damaged(let offset, let lastGoodVersion, let reason) {
            let problem = "The journal is damaged at byte \(offset), after version \(lastGoodVersion): \(reason). "
                + "The page shows versions up to \(lastGoodVersion), the intact part; what follows the damage is not shown. "
                + "`chronicle verify` reports the same."
            guard let handle = FileHandle(forReadingAtPath: url.path) else {
                throw .io(operation: "opening", errno: errno, path: url.path)
            }
            defer { try? handle.close() }
            let prefix: Data
            do {
                prefix = try handle.read(upToCount: Int(offset)) ?? Data()
            } catch {
                throw .io(operation: "reading", errno: EIO, path: url.path)
            }
            return (try Journal(bytes: [UInt8](prefix), url: url), [problem])
        }
    }
}

extension Store {
    /// The Studio page of the store's journal: ``Journal/studioPage()``.
    public func studioPage() -> String { journalForReading.studioPage() }

    /// Writes the Studio page of the store's journal to `url`: ``Journal/writeStudioPage(to:)``.
    /// - Throws: as ``Journal/writeStudioPage(to:)``.
    public func writeStudioPage(to url: URL) throws(JournalError) { try journalForReading.writeStudioPage(to: url) }
}

/// Writing a page to a file with POSIX calls, so failures are typed journal errors.
enum StudioFile {
    static func write(to url: URL, _ body: (inout StudioJSONWriter) -> Void) throws(JournalError) {
        let path = url.path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw .io(operation: "creating the Studio page", errno: errno, path: path) }
        var failure: JournalError?
        var writer = StudioJSONWriter { bytes in
            guard failure == nil else { return }
            bytes.withUnsafeBytes { buffer in
                var done = 0
                while done < buffer.count {
                    let written = posixWrite(descriptor, buffer.baseAddress! + done, buffer.count - done)
                    if written < 0 {
                        if errno == EINTR { continue }
                        let code = errno
                        failure = code == ENOSPC || code == EFBIG || code == EDQUOT
                            ? .diskFull(path: path, errno: code) : .io(operation: "writing the Studio page", errno: code, path: path)
                        return
                    }
                    done += written
                }
            }
        }
        body(&writer)
        writer.flush()
        if close(descriptor) != 0, failure == nil { failure = .io(operation: "closing the Studio page", errno: errno, path: path) }
        if let failure { throw failure }
    }
}

/// `write(2)`, named apart from ``StudioFile/write(to:_:)``.
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
