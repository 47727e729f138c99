import Foundation

/// What opening a journal found: the header's file id, where every commit
/// starts, where the last whole commit ends, and how long the torn tail is.
///
/// The torn-tail rule: the scan stops at the first record that is not whole
/// with a matching checksum. If no whole, checksummed record starts at *any*
/// byte after it, everything from that record on is a torn tail (a write the
/// crash cut short, zeros or garbage the file system left) and is cut.
/// Otherwise valid data follows bad data: that is damage, reported with
/// ``JournalError/damaged(offset:lastGoodVersion:reason:)``, never skipped.
/// A record whose checksum matches but does not carry the next version is
/// damage wherever it is: a torn write cannot produce a matching checksum.
/// The scan decodes only each commit's version; a checksummed record whose
/// events do not decode is reported when it is read — by the fold, a reader,
/// or `chronicle verify`: as
/// ``JournalError/writtenByNewerVersion(version:offset:detail:)`` when it
/// holds a tag this build does not know (a newer Chronicle wrote it), as
/// damage, with its offset, otherwise (only a bug or a crafted file makes
/// one). Neither is ever cut: only a record whose checksum does not match
/// can be a torn tail.
///
/// Given a ``JournalPrefix`` that fits the file, the scan starts after the
/// prefix's last record instead, with the same rules; the prefix is left to
/// ``UnscannedPrefix/scanRecords(in:)``, which checks it when history first
/// needs it.
struct JournalScan {
    var fileID: UUID
    /// The version before the first commit (0 unless the journal was compacted).
    var baseVersion: UInt64 = 0
    /// Where every scanned commit starts: `offsets[i]` is the record of
    /// version `baseVersion + 1 + i`, or `unscanned.version + 1 + i` after
    /// a trusted prefix.
    var offsets: [Int]
    /// The end of the last whole commit.
    var end: Int
    /// Bytes after `end`: a torn tail, or space reserved ahead
    /// (``tailIsZeros``). A writer with the file alone cuts either.
    var tornBytes: Int
    /// Whether every byte after `end` is zero: space a syncing writer
    /// reserved ahead of its data (``JournalCore``'s `reserve`), in use by
    /// a journal still open or left by one that was not closed. No record
    /// was written there, so it is not reported as a torn tail
    /// (``Journal/discardedTailBytes``), and a sharing open leaves it to
    /// the journals that still have the file open.
    var tailIsZeros = false
    /// The prefix the scan trusted and skipped, if it was given one that fits.
    var unscanned: UnscannedPrefix? = nil

    /// Scans all of `storage`. Reads only; never modifies it.
    /// - Complexity: O(size of the journal); memory O(number of commits).
    static func scan(_ storage: any JournalStorage, url: URL) throws(JournalError) -> JournalScan {
        try scan(storage, url: url, trusting: nil)
    }

    /// Scans `storage` after the records `prefix` vouches for, if it fits
    /// the file (``UnscannedPrefix/fitting(_:header:storage:size:)``), or
    /// all of it otherwise. The header is checked either way. Reads only;
    /// never modifies it.
    /// - Complexity: O(size of the journal after the prefix) when the
    ///   prefix fits, O(size of the journal) otherwise; memory O(number of
    ///   commits scanned).
    static func scan(_ storage: any JournalStorage, url: URL, trusting prefix: JournalPrefix?) throws(JournalError) -> JournalScan {
        let size = try storage.size()
        let bytes = try storage.read(count: min(size, JournalFormat.versionTwoHeaderSize), at: 0)
        let header = try JournalFormat.parseHeader(bytes, fileSize: size, url: url)
        var unscanned: UnscannedPrefix?
        if let prefix { unscanned = try UnscannedPrefix.fitting(prefix, header: header, storage: storage, size: size) }
        let (offsets, end) = try scanRecords(storage, from: unscanned?.end ?? header.size, to: size,
                                             after: unscanned?.version ?? header.baseVersion)
        let tailIsZeros = end < size ? try storage.isZeros(from: end, to: size) : false
        return JournalScan(fileID: header.fileID, baseVersion: header.baseVersion, offsets: offsets, end: end,
                           tornBytes: size - end, tailIsZeros: tailIsZeros, unscanned: unscanned)
    }

    /// The records from `start` to `size`, whose versions must run on from
    /// `previous`: where each starts, and where the last whole one ends
    /// (`size` unless a torn tail follows it).
    private static func scanRecords(_ storage: any JournalStorage, from start: Int, to size: Int,
                                    after previous: UInt64) throws(JournalError) -> (offsets: [Int], end: Int) {
        var cursor = RecordCursor(storage: storage, from: start, to: size)
        var offsets: [Int] = []
        while true {
            let lastGood = previous + UInt64(offsets.count)
            switch try cursor.nextVersion() {
            case .end:
                return (offsets, size)
            case .record(let version, let start):
                guard version == lastGood + 1 else {
                    throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                                   reason: "the record holds version \(version) where version \(lastGood + 1) belongs")
                }
                offsets.append(start)
            case .badPayload(let start, let reason):
                throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood, reason: reason)
            case .newerPayload(let start, let reason):
                throw .writtenByNewerVersion(version: lastGood + 1, offset: UInt64(start), detail: reason)
            case .badFrame(let start, let reason):
                switch try cursor.validRecord(after: start) {
                case .found(let next):
                    throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                                   reason: "\(reason), yet a valid record follows at byte \(next)")
                case .undecided(let limit):
                    throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                                   reason: "\(reason), and more than \(limit) possible records follow at once, so it cannot be "
                                       + "ruled out that valid data follows (only a crafted file does this)")
                case .none:
                    return (offsets, start)
                }
            }
        }
    }
}
