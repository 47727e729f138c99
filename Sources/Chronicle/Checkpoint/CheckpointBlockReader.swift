/// Reads one checkpoint block's objects in order: per object its key, its
/// primary key if the table carries one as a field (else −1), and the bytes
/// of its values, which a lookup skips without decoding.
struct CheckpointBlockReader {
    private var reader: BinaryReader
    private let hasPrimaryKeyField: Bool
    private var remaining: Int

    /// A reader of `block`'s bytes (checked already), of a table of `layout`.
    init(_ bytes: UnsafeRawBufferPointer, objects: Int, hasPrimaryKeyField: Bool) {
        reader = BinaryReader(bytes)
        self.hasPrimaryKeyField = hasPrimaryKeyField
        remaining = objects
    }

    /// The next object, or `nil` after the last. With `primaryKeys`
    /// `false`, a primary-key field is stepped over, not decoded, and
    /// reads as −1.
    /// - Throws: ``BinaryReader/Malformed`` if the block does not hold as
    ///   many objects as its directory entry says, exactly.
    @inline(__always)
    mutating func next(primaryKeys: Bool = true) throws(BinaryReader.Malformed)
        -> (key: Int64, primaryKey: Int64, values: UnsafeRawBufferPointer)? {
        guard remaining > 0 else {
            guard reader.isAtEnd else { throw reader.fail("\(reader.remaining) bytes after the block's objects") }
            return nil
        }
        remaining -= 1
        let key = try reader.signed()
        var primaryKey: Int64 = -1
        if hasPrimaryKeyField {
            if primaryKeys { primaryKey = try reader.signed() } else { try reader.skipVarint() }
        }
        let length = try reader.count(limit: reader.remaining)
        return (key, primaryKey, try reader.bytes(length))
    }
}
