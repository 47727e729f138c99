import Foundation

/// The on-disk framing of a journal: a fixed header, then one record per commit.
///
/// ```
/// header v1 (32 bytes): magic "CHRNCLJ\0" | format version UInt16 LE (1) | reserved UInt16 (0)
///                        | file id (16 bytes) | CRC32C of the 28 bytes before it, UInt32 LE
/// header v2 (40 bytes):  magic | format version (2) | reserved (0) | file id
///                        | base version UInt64 LE | CRC32C of the 36 bytes before it, UInt32 LE
/// record:                payload length UInt32 LE | CRC32C(length bytes ++ payload) UInt32 LE
///                        | payload (an EventCodec-encoded commit)
/// ```
///
/// The *base version* is the version before the file's first commit: 0 for
/// a journal that starts at version 1 (always written with the v1 header,
/// so older builds keep reading it), and the compaction point for a
/// compacted journal (`Store.compact`), whose first commit is a snapshot
/// with version `base + 1`. v1 headers read as base 0.
///
/// The format version describes the framing (header and record layout)
/// only. It is not raised for a new event kind, schema change, value type
/// or property attribute: those get a new tag (or flag bit) in the payload,
/// so a journal that never uses them stays readable by older builds. The
/// unknown tag is the signal: a build that meets one in a record whose
/// checksum matches reports ``JournalError/writtenByNewerVersion(version:offset:detail:)``
/// and never treats the record as damage or a torn tail (see `EventCodec`).
enum JournalFormat {
    static let magic: [UInt8] = Array("CHRNCLJ\0".utf8)
    /// The newest format version this build reads (and writes, for compacted journals).
    static let version: UInt16 = 2
    /// The format version of a journal that starts at version 1.
    static let baseZeroVersion: UInt16 = 1
    /// The size of a v1 header; see ``headerSize(formatVersion:)``.
    static let headerSize = 32
    static let versionTwoHeaderSize = 40

    static func headerSize(formatVersion: UInt16) -> Int { formatVersion >= 2 ? versionTwoHeaderSize : headerSize }
    static let frameHeaderSize = 8
    /// The largest payload a record may declare: a damaged length can never
    /// make a reader allocate more than this (nor more than the file holds).
    static let maximumPayload = 1 << 30

    /// A new header with a random file id (from the task's UUID generator, if
    /// a test installed one, so seeded runs write identical files): v1 for
    /// base version 0, v2 otherwise.
    static func makeHeader(fileID: UUID = IdentifierGeneration.makeUUID(), baseVersion: UInt64 = 0) -> [UInt8] {
        var w = BinaryWriter(capacity: versionTwoHeaderSize)
        w.raw(magic)
        w.fixed16(baseVersion == 0 ? baseZeroVersion : version)
        w.fixed16(0)
        withUnsafeBytes(of: fileID.uuid) { w.raw($0) }
        if baseVersion != 0 {
            for shift in stride(from: 0, to: 64, by: 8) { w.raw([UInt8(truncatingIfNeeded: baseVersion >> UInt64(shift))]) }
        }
        w.fixed32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// What a header says.
    struct Header {
        var fileID: UUID
        var baseVersion: UInt64
        var size: Int
    }

    /// Validates a header. `bytes` holds the first (up to)
    /// `versionTwoHeaderSize` bytes of a file of `fileSize` bytes.
    static func parseHeader(_ bytes: [UInt8], fileSize: Int, url: URL) throws(JournalError) -> Header {
        guard fileSize > 0 else { throw .emptyFile(url) }
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else { throw .notAJournal(url) }
        guard bytes.count >= magic.count + 2 else {
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header is cut short (\(bytes.count) of \(headerSize) bytes)")
        }
        let found = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        guard found == baseZeroVersion || found == version else {
            if found > version { throw .unsupportedFormatVersion(found: found, supported: version) }
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header names format version \(found), which never existed")
        }
        let size = headerSize(formatVersion: found)
        guard bytes.count >= size else {
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header is cut short (\(bytes.count) of \(size) bytes)")
        }
        func little(_ range: Range<Int>) -> UInt64 {
            range.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[$1]) }
        }
        let stored = UInt32(little(size - 4..<size))
        guard CRC32C.checksum(Array(bytes[0..<(size - 4)])) == stored else {
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header checksum does not match")
        }
        let base = found >= 2 ? little(28..<36) : 0
        let id = bytes[12..<28]
        let fileID = UUID(uuid: (id[12], id[13], id[14], id[15], id[16], id[17], id[18], id[19],
                                 id[20], id[21], id[22], id[23], id[24], id[25], id[26], id[27]))
        return Header(fileID: fileID, baseVersion: base, size: size)
    }

    /// One framed record holding `commit`.
    /// - Complexity: O(size of the commit).
    static func encodeRecord(_ commit: Commit) throws(JournalError) -> [UInt8] {
        // About the size of a created object with a few short properties:
        // the buffer then grows (doubling) once or not at all.
        var w = BinaryWriter(capacity: frameHeaderSize + 32 + commit.events.count * 48)
        w.fixed32(0)
        w.fixed32(0)
        EventCodec.encode(commit, into: &w)
        let length = w.count - frameHeaderSize
        guard length <= maximumPayload else { throw .commitTooLarge(bytes: length, limit: maximumPayload) }
        w.patch32(UInt32(length), at: 0)
        let crc = w.bytes.withUnsafeBytes { raw in
            checksum(length: UInt32(length), payload: UnsafeRawBufferPointer(rebasing: raw[frameHeaderSize...]))
        }
        w.patch32(crc, at: 4)
        return w.bytes
    }

    /// The room to leave before a commit's events, encoded as they are
    /// made, for its record's frame header and the commit's header
    /// (``record(events:after:eventCount:version:timestamp:label:metadata:)``).
    static func headRoom(label: String?, metadata: [String: String]) -> Int {
        frameHeaderSize + EventCodec.maximumHeaderSize(label: label, metadata: metadata)
    }

    /// The record of a commit whose `eventCount` events `writer` holds,
    /// encoded, after `room` bytes left for the heads (at least
    /// ``headRoom(label:metadata:)`` for this label and metadata): the
    /// heads are written at the end of that room, so that the record lies
    /// whole in the writer's buffer and the events are never copied.
    /// The same bytes ``encodeRecord(_:)`` makes of the commit.
    ///
    /// - Throws: ``JournalError/commitTooLarge(bytes:limit:)``.
    /// - Complexity: O(size of the events), for the checksum.
    static func record(events writer: consuming BinaryWriter, after room: Int, eventCount: Int, version: UInt64,
                       timestamp: Date, label: String?, metadata: [String: String]) throws(JournalError) -> EncodedRecord {
        var head = BinaryWriter(capacity: room)
        EventCodec.encodeHeader(version: version, timestamp: timestamp, label: label, metadata: metadata,
                                eventCount: eventCount, into: &head)
        let start = room - frameHeaderSize - head.count
        precondition(start >= 0, "JournalFormat: a commit's header outgrew the room left for it")
        var writer = writer
        head.withWrittenBytes { writer.overwrite($0, at: start + frameHeaderSize) }
        let length = writer.count - start - frameHeaderSize
        guard length <= maximumPayload else { throw .commitTooLarge(bytes: length, limit: maximumPayload) }
        let crc = writer.withWrittenBytes { raw in
            checksum(length: UInt32(length), payload: UnsafeRawBufferPointer(rebasing: raw[(start + frameHeaderSize)...]))
        }
        writer.patch32(UInt32(length), at: start)
        writer.patch32(crc, at: start + 4)
        return EncodedRecord(version: version, writer: writer, start: start)
    }

    /// A commit's record, whole, in a writer's buffer from `start` to its
    /// end (``record(events:after:eventCount:version:timestamp:label:metadata:)``).
    struct EncodedRecord {
        /// The commit's version.
        let version: UInt64
        let writer: BinaryWriter
        let start: Int

        /// The record's length in bytes.
        var count: Int { writer.count - start }

        /// Calls `body` with the record's bytes, without copying them.
        func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws(JournalError) -> R) throws(JournalError) -> R {
            try writer.withWrittenBytes(throwing: { (raw) throws(JournalError) in try body(UnsafeRawBufferPointer(rebasing: raw[start...])) })
        }
    }

    /// The `UInt32` stored little-endian at `bytes[offset..<offset + 4]`.
    static func littleEndian32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }

    /// The record checksum: CRC32C over the little-endian length, then the payload,
    /// so a damaged length field is caught as surely as a damaged payload.
    static func checksum(length: UInt32, payload: UnsafeRawBufferPointer) -> UInt32 {
        let head = withUnsafeBytes(of: length.littleEndian) { CRC32C.checksum($0) }
        return CRC32C.checksum(payload, continuing: head)
    }
}
