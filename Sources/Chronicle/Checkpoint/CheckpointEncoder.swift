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
/// The encoder hands its bytes to a sink (``Sink``) with their offsets,
/// the blocks a piece of about ``pieceBytes`` at a time as they are made
/// (``writePiece(to:)``), the rest at the end (``finish(prefix:to:)``):
/// writing a file this way holds one piece, not the file.
///
/// - Complexity: O(size of the objects); memory O(``pieceBytes`` + blocks
///   × the size of an entry).
struct CheckpointEncoder {
    /// The most objects a block holds.
    static let blockObjects = 256
    /// A block ends once it holds this many bytes.
    static let blockBytes = 1 << 15
    /// A piece of the blocks ends once it holds this many bytes.
    static let pieceBytes = 1 << 20

    /// Where a piece of the file goes: its bytes and their offset in the file.
    typealias Sink<Failure: Error> = (UnsafeRawBufferPointer, _ offset: Int) throws(Failure) -> Void

    private let schema: [TypeSchema]
    private let schemaVersion: UInt64
    private let nextKeys: [Int64]
    private var tables: [CheckpointLayout.Table] = []
    /// Per table, its blocks (offsets from the first block).
    private var tableBlocks: [[CheckpointLayout.Block]] = []
    /// The blocks not yet handed to the sink: at most about ``pieceBytes``
    /// (``hasFullPiece``), then written and the buffer reused, so that the
    /// file is never held whole (its head, known only at the end, goes last:
    /// the directory and entries after the blocks, the header at offset 0).
    /// The first piece's buffer starts small, for small states.
    private var piece = BinaryWriter(capacity: 1 << 16)
    /// The bytes of the pieces handed to the sink so far.
    private var piecesWritten = 0
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
        closeTable()
        let index = tables.count
        precondition(index < schema.count, "CheckpointEncoder: more tables than types")
        let type = schema[index]
        let primaryKey = type.primaryKeyIndex
        let hasPrimaryKeyField = primaryKey.map { type.properties[$0].type == .int && type.properties[$0].collection == .none } ?? false
        tables.append(CheckpointLayout.Table(schema: type, nextKey: nextKeys[index], count: 0,
                                             hasPrimaryKeyField: hasPrimaryKeyField, primaryKeysAscend: hasPrimaryKeyField, blockCount: 0, groups: []))
        tableBlocks.append([])
        current = Current(primaryKeyField: hasPrimaryKeyField ? primaryKey : nil, count: 0, primaryKeysAscend: hasPrimaryKeyField)
    }

    /// The table objects are being appended to, kept here rather than in
    /// ``tables`` while they come: its last element's fields, updated per
    /// object, cost a uniqueness check each, and the schema's primary key
    /// a search of its properties.
    private struct Current {
        /// The property whose value is each object's primary-key field.
        var primaryKeyField: Int?
        var count: Int
        var primaryKeysAscend: Bool
    }

    private var current = Current(primaryKeyField: nil, count: 0, primaryKeysAscend: false)

    /// Puts the current table's counts into ``tables``.
    private mutating func closeTable() {
        guard !tables.isEmpty else { return }
        tables[tables.count - 1].count = current.count
        tables[tables.count - 1].primaryKeysAscend = current.primaryKeysAscend
    }

    /// Adds an object to the current table. Objects come in ascending key
    /// order (the decoder rejects anything else).
    mutating func append(key: Int64, values record: some Collection<PersistedValue>) {
        append(key: key, primaryKey: { record[record.index(record.startIndex, offsetBy: $0)] }) { (w) in
            for value in record { EventCodec.encode(value, into: &w) }
        }
    }

    /// ``append(key:values:)`` for a record: its values encoded straight
    /// from their slots (``RecordStorage/encodeValues(into:)``, as a write's
    /// `.create` events are), not through an array of ``PersistedValue``
    /// made, encoded and destroyed per object.
    mutating func append(key: Int64, record: ObjectRecord) {
        append(key: key, primaryKey: { record[$0] }) { record.storage.encodeValues(into: &$0) }
    }

    @inline(__always)
    private mutating func append(key: Int64, primaryKey value: (Int) -> PersistedValue, encode: (inout BinaryWriter) -> Void) {
        assert(!tables.isEmpty, "CheckpointEncoder: an object before the first beginTable()")
        var primaryKey: Int64 = -1
        if let property = current.primaryKeyField {
            primaryKey = CheckpointFile.primaryKeyField(value(property))
            let previous = current.count > 0 ? lastPrimaryKey : -1
            if primaryKey <= previous { current.primaryKeysAscend = false }
            lastPrimaryKey = primaryKey
        }
        values.removeAll()
        encode(&values)
        if blockFirst == nil { blockFirst = (key, primaryKey) }
        block.signed(key)
        if current.primaryKeyField != nil { block.signed(primaryKey) }
        block.varint(values.count)
        values.withWrittenBytes { block.raw($0) }
        blockCount += 1
        current.count += 1
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
        block.removeAll()
        blockFirst = nil
        blockCount = 0
    }

    /// Whether a piece of blocks is ready for ``writePiece(to:)``: check
    /// after each ``append(key:values:)``.
    var hasFullPiece: Bool { piece.count >= Self.pieceBytes }

    /// Hands the blocks made so far to `sink`, at their place in the file,
    /// and reuses their buffer for the next.
    mutating func writePiece<Failure: Error>(to sink: Sink<Failure>) throws(Failure) {
        guard piece.count > 0 else { return }
        let offset = CheckpointLayout.headerSize + piecesWritten
        try piece.withWrittenBytes(throwing: { (raw) throws(Failure) in try sink(raw, offset) })
        piecesWritten += piece.count
        piece.removeAll()
    }

    /// Ends the file, for the state at the end of `prefix` of its journal:
    /// hands `sink` the last blocks, then the directory and the entries
    /// after the blocks, then the header at offset 0.
    consuming func finish<Failure: Error>(prefix: JournalPrefix, to sink: Sink<Failure>) throws(Failure) {
        finishBlock()
        while tables.count < schema.count { beginTable() }
        closeTable()
        try writePiece(to: sink)
        var entries = BinaryWriter(capacity: tableBlocks.reduce(0) { $0 + $1.count } * CheckpointLayout.entrySize)
        var directory = BinaryWriter(capacity: 1024 + tables.count * 64)
        directory.varint(tables.count)
        for index in tables.indices {
            tables[index].setBlocks(tableBlocks[index], entries: &entries)
            tables[index].encode(into: &directory)
        }
        if schemaVersion != 0 { directory.varint(schemaVersion) }
        var tail = BinaryWriter(capacity: directory.count + 4 + entries.count)
        directory.withWrittenBytes { tail.raw($0) }
        tail.fixed32(directory.withWrittenBytes { CRC32C.checksum($0) })
        entries.withWrittenBytes { tail.raw($0) }
        let tailOffset = CheckpointLayout.headerSize + blockBytesWritten
        try tail.withWrittenBytes(throwing: { (raw) throws(Failure) in try sink(raw, tailOffset) })
        var header = BinaryWriter(capacity: CheckpointLayout.headerSize)
        header.raw(CheckpointFile.magic)
        header.fixed16(CheckpointFile.formatVersion)
        withUnsafeBytes(of: prefix.fileID.uuid) { header.raw($0) }
        header.fixed64(prefix.version)
        header.fixed64(UInt64(prefix.recordOffset))
        header.fixed32(prefix.recordChecksum)
        header.fixed64(UInt64(blockBytesWritten))
        header.fixed32(UInt32(directory.count))
        header.fixed32(header.withWrittenBytes { CRC32C.checksum($0) })
        assert(header.count == CheckpointLayout.headerSize)
        try header.withWrittenBytes(throwing: { (raw) throws(Failure) in try sink(raw, 0) })
    }

    /// The whole file in one buffer (for tests and small states).
    /// - Complexity: O(size of the file).
    consuming func finish(prefix: JournalPrefix) -> [UInt8] {
        var file: [UInt8] = []
        finish(prefix: prefix) { file.write($0, at: $1) }
        return file
    }
}
