import Foundation

/// The records a journal trusted at open without scanning them: versions
/// `baseVersion + 1 ... version`, from `dataStart` to `end`.
///
/// Opening checks only that the ``JournalPrefix`` fits the file
/// (``fitting(_:header:storage:size:)``); the records are checked when
/// history first needs them (``scanRecords(in:)``), exactly as a full open
/// would have checked them.
struct UnscannedPrefix: Sendable, Equatable {
    /// The version before the journal's first commit.
    var baseVersion: UInt64
    /// The last version of the prefix.
    var version: UInt64
    /// Where the first record starts (the header's size).
    var dataStart: Int
    /// Where the record of `version` starts.
    var recordOffset: Int
    /// Where the record of `version` ends: the scan of the rest starts here.
    var end: Int

    /// How many commits the prefix holds.
    var count: UInt64 { version - baseVersion }

    /// The smallest a record can be (a frame header and one payload byte):
    /// bounds how many versions a prefix can hold, whatever it claims.
    private static let minimumRecordSize = JournalFormat.frameHeaderSize + 1
    /// The longest a varint is: all of a payload the version can take.
    private static let maximumVarintSize = 10

    /// The prefix `prefix` describes, if it fits this file: same file id,
    /// `recordOffset` inside the data, a whole frame there whose stored
    /// checksum is `recordChecksum` and whose payload starts with
    /// `prefix.version`, which is after the base version and leaves room
    /// for every version before it. `nil` if anything does not hold.
    ///
    /// Reads the frame header and at most 10 payload bytes; checks no
    /// payload checksum.
    ///
    /// - Throws: only ``JournalError/io(operation:errno:path:)``.
    /// - Complexity: O(1).
    static func fitting(_ prefix: JournalPrefix, header: JournalFormat.Header, storage: any JournalStorage,
                        size: Int) throws(JournalError) -> UnscannedPrefix? {
        let frame = JournalFormat.frameHeaderSize
        let offset = prefix.recordOffset
        guard prefix.fileID == header.fileID, prefix.version > header.baseVersion,
              offset >= header.size, offset <= size - frame else { return nil }
        let room = UInt64((offset - header.size) / minimumRecordSize)
        guard prefix.version - header.baseVersion - 1 <= room else { return nil }
        let bytes = try storage.read(count: frame + maximumVarintSize, at: offset)
        guard bytes.count >= frame else { return nil }
        let length = Int(JournalFormat.littleEndian32(bytes, at: 0))
        guard JournalFormat.littleEndian32(bytes, at: 4) == prefix.recordChecksum,
              length > 0, length <= JournalFormat.maximumPayload, length <= size - offset - frame else { return nil }
        let head = Array(bytes[frame..<min(bytes.count, frame + length)])
        let version = head.withUnsafeBytes { raw in try? EventCodec.decodeVersion(raw) }
        guard version == prefix.version else { return nil }
        return UnscannedPrefix(baseVersion: header.baseVersion, version: prefix.version, dataStart: header.size,
                               recordOffset: offset, end: offset + frame + length)
    }

    /// Where each version's record starts, found by checking every record of
    /// the prefix as opening checks a journal (framing, checksum, the version
    /// each payload starts with), and that the last of them, ending at
    /// ``end``, holds ``version``.
    ///
    /// Any record that fails is damage, never a torn tail: the journal goes
    /// on after the prefix.
    ///
    /// - Throws: ``JournalError/damaged(offset:lastGoodVersion:reason:)``;
    ///   ``JournalError/io(operation:errno:path:)``.
    /// - Complexity: O(size of the prefix); memory O(``count``).
    func scanRecords(in storage: any JournalStorage) throws(JournalError) -> [Int] {
        let vouched = "in the prefix through version \(version) that a checkpoint vouched for when the journal was opened"
        var cursor = RecordCursor(storage: storage, from: dataStart, to: end)
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(count))
        while true {
            let lastGood = baseVersion + UInt64(offsets.count)
            switch try cursor.nextVersion() {
            case .end:
                // Valid records that end at `end` with another version mean
                // the versions after the prefix were numbered wrongly at open.
                // Ending with `version`, they hold what the checkpoint covers,
                // even if none starts at `recordOffset` (only a crafted file
                // gets there): reads are right, so that is no damage.
                guard lastGood == version else {
                    let before = UInt64(offsets.count(where: { $0 < recordOffset }))
                    throw .damaged(offset: UInt64(recordOffset), lastGoodVersion: baseVersion + max(before, 1) - 1,
                                   reason: "the records before byte \(end) hold versions \(baseVersion + 1)...\(lastGood), "
                                       + "not \(baseVersion + 1)...\(version) (\(vouched))")
                }
                return offsets
            case .record(let found, let start):
                guard found == lastGood + 1 else {
                    throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                                   reason: "the record holds version \(found) where version \(lastGood + 1) belongs (\(vouched))")
                }
                offsets.append(start)
            case .badFrame(let start, let reason), .badPayload(let start, let reason):
                throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood, reason: "\(reason) (\(vouched))")
            case .newerPayload(let start, let reason):
                throw .writtenByNewerVersion(version: lastGood + 1, offset: UInt64(start), detail: reason)
            }
        }
    }
}
