import Foundation

/// Writes the bytes of a checkpoint file (layout in ``CheckpointFile``):
/// the tables' objects, one table after another in ascending key order,
/// cut into blocks of at most ``blockObjects`` objects or about
/// ``blockBytes`` bytes, each with its own checksum in its entry.
///
/// Blocks are what let an open read one object without reading the file:
/// the directory gives each group of blocks its first key (and first
/// primary key), and the group's entries each block's, so a lookup checks
/// one group's entries and scans one block. See ``CheckpointTable``.
///
/// - Complexity: O(size of the objects).
struct CheckpointEncoder {
    /// The most objects a block holds.
    static let blockObjects = 256
    /// A block ends once it holds this many bytes.
    static let blockBytes = 1 << 15
    /// A piece of the blocks ends once it holds this many bytes.
    static let pieceBytes = 1 << 20

    /// A checkpoint file in parts, written one after another: the header,
    /// directory and entries, then the blocks in pieces. Writing the parts
    /// holds the blocks once, not a second time in one contiguous copy.
    struct Parts {
        /// The header, the directory and its checksum, and the block entries.
        var head: [UInt8]
        /// The blocks, in order, cut anywhere.
        var blocks: [[UInt8]]

        /// The whole file in one buffer. O(size of the file).
        var joined: [UInt8] {
            var bytes = head
            bytes.reserveCapacity(blocks.reduce(head.count) { $0 + $1.count })
            for piece in blocks { bytes += piece }
            return bytes
        }
    }

    private let schema: [TypeSchema]
    private let schemaVersion: UInt64
    private let nextKeys: [Int64]
    private var tables: [CheckpointLayout.Table] = []
    /// Per table, its blocks (offsets from the first block).
    private var tableBlocks: [[CheckpointLayout.Block]] = []
    /// The blocks written so far, in pieces of about ``pieceBytes`` (see
    /// ``Parts``): one growing buffer would double (and zero-fill) its
    /// way to the file's size and then be copied once more behind the
    /// header, holding about three times the file at its peak.
    private var pieces: [[UInt8]] = []
    /// The piece being written; the first starts small, for small states.
    private var piece = BinaryWriter(capacity: 1 << 16)
    /// The bytes of every block so far: the next block's offset.
    private var blockBytesWritten = 0
    private var block = BinaryWriter(capacity: blockBytes + 1024)
    private var blockFirst: (key: Int64, primaryKey: Int64)?
    private var blockCount = 0
    private var values = BinaryWriter(capacity: 256)

    /// An encoder for a state of these types and next keys.
    init(schema: [TypeSchema], nextKeys: [Int64], schemaVersion: UInt64 = 0) {
        precondition(schema.count == nextKeys.count)
        self.schema = schema
        self.schemaVersion = schemaVersion
        self.nextKeys = nextKeys
    }

    /// Starts the next table; its objects follow with ``append(key:values:)``.
    mutating func beginTable() {
        finishBlock()
        let index = tables.count
        precondition(index < schema.count, "CheckpointEncoder: more tables than types")
        let type = schema[index]
        let hasPrimaryKeyField = type.primaryKeyIndex.map { type.properties[$0].type == .int && type.properties[$0].collection == .none } ?? false
        tables.append(CheckpointLayout.Table(schema: type, nextKey: nextKeys[index], count: 0,
                                             hasPrimaryKeyField: hasPrimaryKeyField, primaryKeysAscend: hasPrimaryKeyField, blockCount: 0, groups: []))
        tableBlocks.append([])
    }

    /// Adds an object to the current table. Objects come in ascending key
    /// order (the decoder rejects anything else).
    mutating func append(key: Int64, values record: some Collection<PersistedValue>) {
        let index = tables.count - 1
        var primaryKey: Int64 = -1
        if tables[index].hasPrimaryKeyField, let property = schema[index].primaryKeyIndex {
            primaryKey = CheckpointFile.primaryKeyField(record[record.index(record.startIndex, offsetBy: property)])
            let previous = tables[index].count > 0 ? lastPrimaryKey : -1
            if primaryKey <= previous { tables[index].primaryKeysAscend = false }
            lastPrimaryKey = primaryKey
        }
        values.removeAll()
        for value in record { EventCodec.encode(value, into: &values) }
        if blockFirst == nil { blockFirst = (key, primaryKey) }
        block.signed(key)
        if tables[index].hasPrimaryKeyField { block.signed(primaryKey) }
        block.varint(values.count)
        values.withWrittenBytes { block.raw($0) }
        blockCount += 1
        tables[index].count += 1
        if blockCount >= Self.blockObjects || block.count >= Self.blockBytes { finishBlock() }
    }

    private var lastPrimaryKey: Int64 = -1

    private mutating func finishBlock() {
        guard let first = blockFirst, !tables.isEmpty else { return }
        let checksum = block.withWrittenBytes { CRC32C.checksum($0) }
        tableBlocks[tableBlocks.count - 1].append(CheckpointLayout.Block(
            offset: blockBytesWritten, length: block.count, objects: blockCount,
            firstKey: first.key, firstPrimaryKey: first.primaryKey, checksum: checksum))
        block.withWrittenBytes { piece.raw($0) }
        blockBytesWritten += block.count
        if piece.count >= Self.pieceBytes {
            pieces.append(piece.bytes)
            piece = BinaryWriter(capacity: Self.pieceBytes + Self.blockBytes + 1024)
        }
        block.removeAll()
        blockFirst = nil
        blockCount = 0
    }

    /// The whole file, for the state at the end of `prefix` of its journal.
    consuming func finish(prefix: JournalPrefix) -> [UInt8] {
        finishParts(prefix: prefix).joined
    }

    /// The file of ``finish(prefix:)`` in ``Parts``, to write without
    /// joining them.
    consuming func finishParts(prefix: JournalPrefix) -> Parts {
        finishBlock()
        while tables.count < schema.count { beginTable() }
        var entries = BinaryWriter(capacity: tableBlocks.reduce(0) { $0 + $1.count } * CheckpointLayout.entrySize)
        var directory = BinaryWriter(capacity: 1024 + tables.count * 64)
        directory.varint(tables.count)
        for index in tables.indices {
            tables[index].setBlocks(tableBlocks[index], entries: &entries)
            tables[index].encode(into: &directory)
        }
        if schemaVersion != 0 { directory.varint(schemaVersion) }
        let directoryBytes = directory.bytes
        var w = BinaryWriter(capacity: CheckpointLayout.headerSize + directoryBytes.count + 4 + entries.count)
        w.raw(CheckpointFile.magic)
        w.fixed16(CheckpointFile.formatVersion)
        withUnsafeBytes(of: prefix.fileID.uuid) { w.raw($0) }
        w.fixed64(prefix.version)
        w.fixed64(UInt64(prefix.recordOffset))
        w.fixed32(prefix.recordChecksum)
        w.fixed32(UInt32(directoryBytes.count))
        w.fixed32(CRC32C.checksum(w.bytes))
        w.raw(directoryBytes)
        w.fixed32(CRC32C.checksum(directoryBytes))
        entries.withWrittenBytes { w.raw($0) }
        if piece.count > 0 { pieces.append(piece.bytes) }
        return Parts(head: w.bytes, blocks: pieces)
    }
}
