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
/// events do not decode (only a bug or a crafted file makes one) is reported
/// as damage, with its offset, when it is read — by the fold, a reader, or
/// `chronicle verify`.
struct JournalScan {
    var fileID: UUID
    /// The version before the first commit (0 unless the journal was compacted).
    var baseVersion: UInt64 = 0
    /// `offsets[v - 1 - baseVersion]` is where the record of version `v` starts.
    var offsets: [Int]
    /// The end of the last whole commit.
    var end: Int
    /// Bytes after `end`: a torn tail.
    var tornBytes: Int

    /// Scans all of `storage`. Reads only; never modifies it.
    /// - Complexity: O(size of the journal); memory O(number of commits).
    static func scan(_ storage: any JournalStorage, url: URL) throws(JournalError) -> JournalScan {
        let size = try storage.size()
        let bytes = try storage.read(count: min(size, JournalFormat.versionTwoHeaderSize), at: 0)
        let header = try JournalFormat.parseHeader(bytes, fileSize: size, url: url)
        let fileID = header.fileID
        let base = header.baseVersion
        var cursor = RecordCursor(storage: storage, from: header.size, to: size)
        var offsets: [Int] = []
        while true {
            let lastGood = base + UInt64(offsets.count)
            switch try cursor.nextVersion() {
            case .end:
                return JournalScan(fileID: fileID, baseVersion: base, offsets: offsets, end: size, tornBytes: 0)
            case .record(let version, let start):
                guard version == lastGood + 1 else {
                    throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                                   reason: "the record holds version \(version) where version \(lastGood + 1) belongs")
                }
                offsets.append(start)
            case .badPayload(let start, let reason):
                throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood, reason: reason)
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
                    return JournalScan(fileID: fileID, baseVersion: base, offsets: offsets, end: start, tornBytes: size - start)
                }
            }
        }
    }
}
