import Foundation

/// What a checkpoint file's header and directory say: everything but the
/// objects, which stay in their blocks until read. Parsing it checks the
/// header's and the directory's checksums and that the blocks tile the rest
/// of the file in key order; it reads no block.
///
/// - Complexity: O(types + blocks) to parse.
struct CheckpointLayout: Sendable {
    /// magic · format · journal file id · version · record offset · record
    /// checksum · directory length · header checksum.
    static let headerSize = 8 + 2 + 16 + 8 + 8 + 4 + 4 + 4
    /// Where the directory length is in the header.
    static let directoryLengthOffset = headerSize - 8

    /// One run of objects of one table, checked as a whole.
    struct Block: Sendable, Equatable {
        /// Where the block starts: in the encoder, from the start of the
        /// blocks; once parsed, from the start of the file.
        var offset: Int
        var length: Int
        var objects: Int
        var firstKey: Int64
        /// The first object's primary key if the table has a primary-key
        /// field (−1 for a value that is not a non-negative integer).
        var firstPrimaryKey: Int64
        /// CRC32C of the block's bytes.
        var checksum: UInt32
    }

    /// One table: its type, its counts and its blocks.
    struct Table: Sendable {
        var schema: TypeSchema
        var nextKey: Int64
        var count: Int
        /// Whether each object carries its primary key as a number ahead of
        /// its values (a type whose primary key is a non-collection `Int`).
        var hasPrimaryKeyField: Bool
        /// Whether those primary keys are all non-negative and ascend with
        /// the object keys, so blocks can be searched by primary key.
        var primaryKeysAscend: Bool
        var blocks: [Block]

        func encode(into w: inout BinaryWriter) {
            EventCodec.encode(schema, into: &w)
            w.signed(nextKey)
            w.varint(count)
            w.byte((hasPrimaryKeyField ? 1 : 0) | (primaryKeysAscend ? 2 : 0))
            w.varint(blocks.count)
            for block in blocks {
                w.varint(block.offset)
                w.varint(block.length)
                w.varint(block.objects)
                w.signed(block.firstKey)
                if hasPrimaryKeyField { w.signed(block.firstPrimaryKey) }
                w.fixed32(block.checksum)
            }
        }
    }

    /// The journal the state was folded from, through the state's version.
    var prefix: JournalPrefix
    var tables: [Table]

    /// The version of the state.
    var version: UInt64 { prefix.version }

    /// Why a header or directory cannot be used.
    enum Failure: Error {
        case checksum
        case format(String)
    }

    /// Parses the header and directory of `bytes`, a whole checkpoint file.
    init(parsing bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard bytes.count >= Self.headerSize else { throw .format("only \(bytes.count) bytes") }
        guard bytes.prefix(8).elementsEqual(CheckpointFile.magic) else { throw .format("not a checkpoint file") }
        func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[..<(Self.headerSize - 4)]))
                == load(Self.headerSize - 4, as: UInt32.self) else { throw .checksum }
        guard load(8, as: UInt16.self) == CheckpointFile.formatVersion else { throw .format("unknown checkpoint format") }
        let recordOffset = load(34, as: UInt64.self)
        guard recordOffset <= UInt64(Int.max) else { throw .format("a record offset beyond any file") }
        prefix = JournalPrefix(fileID: UUID(uuid: bytes.loadUnaligned(fromByteOffset: 10, as: uuid_t.self)),
                               version: load(26, as: UInt64.self), recordOffset: Int(recordOffset),
                               recordChecksum: load(42, as: UInt32.self))
        let directoryLength = Int(load(Self.directoryLengthOffset, as: UInt32.self))
        let blocksStart = Self.headerSize + directoryLength + 4
        guard blocksStart <= bytes.count else { throw .format("the directory runs past the end") }
        let directory = UnsafeRawBufferPointer(rebasing: bytes[Self.headerSize..<(Self.headerSize + directoryLength)])
        guard CRC32C.checksum(directory) == load(blocksStart - 4, as: UInt32.self) else { throw .checksum }
        do throws(BinaryReader.Malformed) {
            var r = BinaryReader(directory)
            let typeCount = try r.count(limit: r.remaining)
            var tables: [Table] = []
            var next = blocksStart
            for _ in 0..<typeCount {
                var table = Table(schema: try EventCodec.decodeSchema(&r), nextKey: try r.signed(), count: try r.count(limit: Int.max),
                                  hasPrimaryKeyField: false, primaryKeysAscend: false, blocks: [])
                let flags = try r.byte()
                table.hasPrimaryKeyField = flags & 1 != 0
                table.primaryKeysAscend = flags & 2 != 0
                guard flags & ~3 == 0, table.hasPrimaryKeyField || !table.primaryKeysAscend else { throw r.fail("unknown table flags") }
                // Each block takes at least seven bytes of the directory.
                let blockCount = try r.count(limit: r.remaining / 7)
                table.blocks.reserveCapacity(blockCount)
                var objects = 0
                for _ in 0..<blockCount {
                    let offset = try r.count(limit: bytes.count)
                    let length = try r.count(limit: bytes.count)
                    // Each object takes at least three bytes (key, length, a value's tag).
                    let count = try r.count(limit: length / 3)
                    let firstKey = try r.signed()
                    let firstPrimaryKey = table.hasPrimaryKeyField ? try r.signed() : -1
                    let checksum = try r.fixed32()
                    guard blocksStart + offset == next, next + length <= bytes.count, count > 0 else {
                        throw r.fail("a block out of place")
                    }
                    if let previous = table.blocks.last {
                        guard firstKey > previous.firstKey else { throw r.fail("blocks out of key order") }
                        if table.primaryKeysAscend, firstPrimaryKey <= previous.firstPrimaryKey { throw r.fail("primary keys out of order") }
                    }
                    table.blocks.append(Block(offset: next, length: length, objects: count, firstKey: firstKey,
                                              firstPrimaryKey: firstPrimaryKey, checksum: checksum))
                    next += length
                    objects += count
                }
                guard objects == table.count else { throw r.fail("\(objects) objects in blocks for a count of \(table.count)") }
                tables.append(table)
            }
            guard r.isAtEnd else { throw r.fail("\(r.remaining) bytes after the directory") }
            guard next == bytes.count else { throw r.fail("\(bytes.count - next) bytes after the last block") }
            self.tables = tables
        } catch {
            throw .format("\(error)")
        }
    }

    /// The bytes of `block` of `file`, if their checksum holds.
    static func checkedBytes(of block: Block, in file: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let bytes = UnsafeRawBufferPointer(rebasing: file[block.offset..<(block.offset + block.length)])
        return CRC32C.checksum(bytes) == block.checksum ? bytes : nil
    }

    /// `bytes` with every checksum recomputed — the header's, the
    /// directory's and, if the directory parses, each block's — so changed
    /// bytes reach the decoder instead of failing a checksum (for tests and
    /// the fuzzer: the decoder must withstand hostile files with valid
    /// checksums). A directory that parses is written again as the encoder
    /// writes it.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= headerSize else { return bytes }
        var bytes = bytes
        func seal(_ range: Range<Int>, at offset: Int) {
            let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[range])) }
            withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
        }
        seal(0..<(headerSize - 4), at: headerSize - 4)
        let directoryLength = bytes.withUnsafeBytes {
            Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: directoryLengthOffset, as: UInt32.self)))
        }
        let blocksStart = headerSize + directoryLength + 4
        guard blocksStart <= bytes.count else { return bytes }
        seal(headerSize..<(headerSize + directoryLength), at: blocksStart - 4)
        guard var layout = bytes.withUnsafeBytes({ try? CheckpointLayout(parsing: $0) }) else { return bytes }
        var directory = BinaryWriter(capacity: directoryLength + 64)
        directory.varint(layout.tables.count)
        for index in layout.tables.indices {
            for block in layout.tables[index].blocks.indices {
                let entry = layout.tables[index].blocks[block]
                layout.tables[index].blocks[block].checksum = CRC32C.checksum(Array(bytes[entry.offset..<(entry.offset + entry.length)]))
                layout.tables[index].blocks[block].offset = entry.offset - blocksStart
            }
            layout.tables[index].encode(into: &directory)
        }
        let encoded = directory.bytes
        var header = Array(bytes[..<directoryLengthOffset])
        withUnsafeBytes(of: UInt32(encoded.count).littleEndian) { header.append(contentsOf: $0) }
        header += withUnsafeBytes(of: CRC32C.checksum(header).littleEndian) { Array($0) }
        return header + encoded + withUnsafeBytes(of: CRC32C.checksum(encoded).littleEndian) { Array($0) } + bytes[blocksStart...]
    }
}
