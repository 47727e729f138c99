/// A table of a checkpoint file left in the mapped file at open: the
/// ``DeferredTable`` behind a store opened lazily.
///
/// Reading one object checks its block's checksum (once) and scans that
/// block: the directory gives each block's first key, so finding it is a
/// binary search. So is finding an object by primary key when the table's
/// integer primary keys ascend with its object keys (ids counted up, the
/// common case); other primary keys build the table first. Anything else —
/// iteration, queries, secondary indexes, a write — builds the whole table
/// once (``built()``), as an eager open would have, and every state that
/// shares this object reads the built table from then on.
///
/// Only tables that no link touches are deferred (see
/// ``StoreState/tablesTouchedByLinks()``): their backlinks are empty and
/// their objects need no other table to be checked.
///
/// A block whose checksum or contents fail, found at any point, makes the
/// table rebuild from the journal (``CheckpointRecovery``): reads never
/// return damaged data.
///
/// - Complexity: ``record(forKey:)`` and ``key(forPrimaryKey:)``
///   O(log blocks + block size) (a block's checksum the first time);
///   ``built()`` O(n) once.
final class CheckpointTable: DeferredTable {
    private let table: Int
    private let layout: CheckpointLayout.Table
    private let file: MappedFile
    /// The checkpoint's schema and next keys, no objects: what checking a
    /// value and building the table need.
    private let schema: StoreState
    private let recovery: CheckpointRecovery
    /// One bit per block: its checksum held.
    private let checked: Locked<[UInt64]>
    private let builtTable = OnceReference<Built>()
    /// Held while building, so only one thread builds.
    private let building = Locked<Bool>(false)

    private final class Built: Sendable {
        let table: Table
        init(_ table: Table) { self.table = table }
    }

    init(table: Int, layout: CheckpointLayout.Table, file: MappedFile, schema: StoreState, recovery: CheckpointRecovery) {
        self.table = table
        self.layout = layout
        self.file = file
        self.schema = schema
        self.recovery = recovery
        checked = Locked([UInt64](repeating: 0, count: (layout.blocks.count + 63) / 64))
    }

    var count: Int { layout.count }

    /// Whether the table was built (for tests).
    var isBuilt: Bool { builtTable.load() != nil }

    func record(forKey key: Int64) -> ObjectRecord? {
        if let built = builtTable.load() { return built.table.record(forKey: key) }
        let block = layout.blocks.partitionPoint(where: { $0.firstKey > key }) - 1
        guard block >= 0 else { return nil }
        do throws(Damage) {
            guard let found = try find(in: block, where: { object in object.key >= key }), found.key == key else { return nil }
            return try decode(found.key, found.primaryKey, found.values)
        } catch {
            return built().record(forKey: key)
        }
    }

    func key(forPrimaryKey value: PersistedValue) -> ObjectKey? {
        if let built = builtTable.load() { return built.table.objectKey(forPrimaryKey: value) }
        guard layout.primaryKeysAscend else { return built().objectKey(forPrimaryKey: value) }
        // Every primary key here is a non-negative integer (the flag says so).
        guard case .int(let integer) = value, integer >= 0 else { return nil }
        let block = layout.blocks.partitionPoint(where: { $0.firstPrimaryKey > integer }) - 1
        guard block >= 0 else { return nil }
        do throws(Damage) {
            guard let found = try find(in: block, where: { object in object.primaryKey >= integer }),
                  found.primaryKey == integer else { return nil }
            // Decoded to check it (a lookup is mostly followed by reading the object anyway).
            _ = try decode(found.key, found.primaryKey, found.values)
            return ObjectKey(found.key)
        } catch {
            return built().objectKey(forPrimaryKey: value)
        }
    }

    func built() -> Table {
        if let built = builtTable.load() { return built.table }
        return building.withLock { _ in
            if let built = builtTable.load() { return built.table }
            var state = schema
            var links = [[(target: Int64, link: Backlink)]](repeating: [], count: state.schema.count)
            var table: Table
            do throws(CheckpointFile.Rejection) {
                try CheckpointFile.restoreTable(self.table, layout: layout, file: file.bytes, into: &state, links: &links)
                table = state.tables[self.table]
            } catch {
                table = recovery.table(self.table, of: layout.schema)
            }
            return builtTable.storeIfNil(Built(table)).table
        }
    }

    // MARK: Blocks

    /// A block that failed its checksum or does not decode.
    private struct Damage: Error {}

    /// The first object of `block` for which `isAtOrPast` holds (objects
    /// come in ascending key, and primary-key, order), or `nil`.
    private func find(in block: Int, where isAtOrPast: ((key: Int64, primaryKey: Int64, values: UnsafeRawBufferPointer)) -> Bool)
        throws(Damage) -> (key: Int64, primaryKey: Int64, values: UnsafeRawBufferPointer)? {
        let entry = layout.blocks[block]
        let bytes = UnsafeRawBufferPointer(rebasing: file.bytes[entry.offset..<(entry.offset + entry.length)])
        let word = block / 64, bit = UInt64(1) << UInt64(block % 64)
        if checked.withLock({ $0[word] & bit }) == 0 {
            guard CRC32C.checksum(bytes) == entry.checksum else { throw Damage() }
            checked.withLock { $0[word] |= bit }
        }
        var objects = CheckpointBlockReader(bytes, objects: entry.objects, hasPrimaryKeyField: layout.hasPrimaryKeyField)
        do {
            while let object = try objects.next() {
                if isAtOrPast(object) { return object }
            }
        } catch {
            throw Damage()
        }
        return nil
    }

    /// The record of object `key` from its values' bytes, checked as the
    /// restore checks it (and its primary key against the block's field).
    private func decode(_ key: Int64, _ primaryKeyField: Int64, _ bytes: UnsafeRawBufferPointer) throws(Damage) -> ObjectRecord {
        let properties = layout.schema.properties
        guard key >= 0, key < layout.nextKey else { throw Damage() }
        var r = BinaryReader(bytes)
        var values = ContiguousArray<PersistedValue>()
        values.reserveCapacity(properties.count)
        do {
            for property in properties {
                let value = try CheckpointFile.decodeValue(&r)
                try schema.check(value, fits: property)
                values.append(value)
            }
        } catch {
            throw Damage()
        }
        guard r.isAtEnd else { throw Damage() }
        if layout.hasPrimaryKeyField, let primaryKey = layout.schema.primaryKeyIndex,
           CheckpointFile.primaryKeyField(values[primaryKey]) != primaryKeyField {
            throw Damage()
        }
        return ObjectRecord(values: values)
    }
}
