import Foundation

/// The on-disk framing of a journal: a fixed header, then one record per commit.
///
/// ```
/// header  (32 bytes): magic "CHRNCLJ\0" | format version UInt16 LE | reserved UInt16 (0)
///                     | file id (16 bytes) | CRC32C of the 28 bytes before it, UInt32 LE
/// record:             payload length UInt32 LE | CRC32C(length bytes ++ payload) UInt32 LE
///                     | payload (an EventCodec-encoded commit)
/// ```
enum JournalFormat {
    static let magic: [UInt8] = Array("CHRNCLJ\0".utf8)
    /// The format version this build writes and the newest it reads.
    static let version: UInt16 = 1
    static let headerSize = 32
    static let frameHeaderSize = 8
    /// The largest payload a record may declare: a damaged length can never
    /// make a reader allocate more than this (nor more than the file holds).
    static let maximumPayload = 1 << 30

    /// A new header with a random file id (from the task's UUID generator,
    /// if a test installed one: seeded runs write identical files).
    static func makeHeader(fileID: UUID = IdentifierGeneration.makeUUID()) -> [UInt8] {
        var w = BinaryWriter(capacity: headerSize)
        w.raw(magic)
        w.fixed16(version)
        w.fixed16(0)
        withUnsafeBytes(of: fileID.uuid) { w.raw($0) }
        w.fixed32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Validates a header and returns the file id. `bytes` holds the first
    /// (up to) `headerSize` bytes of a file of `fileSize` bytes.
    static func parseHeader(_ bytes: [UInt8], fileSize: Int, url: URL) throws(JournalError) -> UUID {
        guard fileSize > 0 else { throw .emptyFile(url) }
        guard bytes.count >= magic.count, Array(bytes[0..<magic.count]) == magic else { throw .notAJournal(url) }
        guard bytes.count >= magic.count + 2 else {
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header is cut short (\(bytes.count) of \(headerSize) bytes)")
        }
        let found = UInt16(bytes[8]) | UInt16(bytes[9]) << 8
        guard found == version else {
            if found > version { throw .unsupportedFormatVersion(found: found, supported: version) }
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header names format version \(found), which never existed")
        }
        guard bytes.count == headerSize else {
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header is cut short (\(bytes.count) of \(headerSize) bytes)")
        }
        let stored = UInt32(bytes[28]) | UInt32(bytes[29]) << 8 | UInt32(bytes[30]) << 16 | UInt32(bytes[31]) << 24
        guard CRC32C.checksum(Array(bytes[0..<28])) == stored else {
            throw .damaged(offset: 0, lastGoodVersion: 0, reason: "the header checksum does not match")
        }
        let id = bytes[12..<28]
        return UUID(uuid: (id[12], id[13], id[14], id[15], id[16], id[17], id[18], id[19],
                           id[20], id[21], id[22], id[23], id[24], id[25], id[26], id[27]))
    }

    /// One framed record holding `commit`.
    /// - Complexity: O(size of the commit).
    static func encodeRecord(_ commit: Commit) throws(JournalError) -> [UInt8] {
        var w = BinaryWriter(capacity: frameHeaderSize + 32 + commit.events.count * 24)
        w.fixed32(0)
        w.fixed32(0)
        EventCodec.encode(commit, into: &w)
        let length = w.bytes.count - frameHeaderSize
        guard length <= maximumPayload else { throw .commitTooLarge(bytes: length, limit: maximumPayload) }
        w.patch32(UInt32(length), at: 0)
        let crc = w.bytes.withUnsafeBytes { raw in
            checksum(length: UInt32(length), payload: UnsafeRawBufferPointer(rebasing: raw[frameHeaderSize...]))
        }
        w.patch32(crc, at: 4)
        return w.bytes
    }

    /// The record checksum: CRC32C over the little-endian length, then the payload,
    /// so a damaged length field is caught as surely as a damaged payload.
    static func checksum(length: UInt32, payload: UnsafeRawBufferPointer) -> UInt32 {
        let head = withUnsafeBytes(of: length.littleEndian) { CRC32C.checksum($0) }
        return CRC32C.checksum(payload, continuing: head)
    }
}
