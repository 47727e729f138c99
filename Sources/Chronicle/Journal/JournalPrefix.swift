import Foundation

/// What a checkpoint remembers of the journal it was made from, so a later
/// open can skip checking the records it covers
/// (``Journal/init(fileURL:durability:trusting:)``).
///
/// Made by ``Journal/prefix(through:)``. The file id and the record's
/// stored checksum are what make a foreign or rewritten file fail the
/// cheap check at open: a record elsewhere, or of another journal, carries
/// another checksum with near certainty (1 in 2³² by chance, and then its
/// version must match too).
struct JournalPrefix: Sendable, Equatable {
    /// The journal's file identifier (``Journal/fileIdentifier``).
    var fileID: UUID
    /// The last version the prefix holds.
    var version: UInt64
    /// Where the record of `version` starts in the file (header included).
    var recordOffset: Int
    /// The CRC32C stored in that record's frame header.
    var recordChecksum: UInt32
}

extension Journal {
    /// The prefix of this journal through `version`, for a writer about to
    /// save a checkpoint at `version`; `nil` if the journal does not hold
    /// `version` (it is at most ``baseVersion`` or beyond ``lastVersion``).
    ///
    /// Reads only the record's 8-byte frame header, not its payload. If
    /// `version` lies in a prefix this journal trusted at open and has not
    /// scanned yet, that prefix is scanned first (once).
    ///
    /// - Throws: ``JournalError/damaged(offset:lastGoodVersion:reason:)`` if
    ///   the trusted prefix turns out damaged, or the frame header is cut short;
    ///   ``JournalError/io(operation:errno:path:)``.
    /// - Complexity: O(1), or O(size of the trusted prefix) the first time
    ///   `version` lies in it.
    func prefix(through version: UInt64) throws(JournalError) -> JournalPrefix? {
        guard let offset = try core.recordOffset(of: version) else { return nil }
        let frame = try core.storage.read(count: JournalFormat.frameHeaderSize, at: offset)
        guard frame.count == JournalFormat.frameHeaderSize else {
            throw .damaged(offset: UInt64(offset), lastGoodVersion: version - 1,
                           reason: "the file ends inside the frame header of version \(version)")
        }
        return JournalPrefix(fileID: fileIdentifier, version: version, recordOffset: offset,
                             recordChecksum: JournalFormat.littleEndian32(frame, at: 4))
    }
}
