/// An immutable, versioned snapshot of every object in a store: the fold of
/// the journal up to ``version``.
///
/// Readers hold it as a value. Its tables are persistent maps, so a copy is
/// O(number of tables) and folding a commit into a copy costs O(size of the
/// change): the new state shares all untouched nodes with the old, and old
/// versions stay cheap to keep.
///
/// Reads are total: an unknown table or key reads as absent (`nil`, `0`,
/// empty).
public struct StoreState: Sendable {
    /// The version of the last commit folded in; `0` for the empty state.
    public internal(set) var version: UInt64 = 0
    /// The types, in the order they were defined; a type's table index is its position.
    public internal(set) var schema: [TypeSchema] = []
    /// The schema version the app declared when it last migrated the
    /// store (``Store/Configuration/schemaVersion``); `0` before any migration.
    public internal(set) var schemaVersion: UInt64 = 0
    var tables: [Table] = []
    var tableIndexByName: [String: Int] = [:]

    /// The empty state (version 0, no types).
    public init() {}

    /// The table of the type named `name`. O(1).
    public func tableIndex(named name: String) -> Int? { tableIndexByName[name] }

    /// The record of object `key` in `table`. O(log n).
    public func object(table: Int, key: ObjectKey) -> ObjectRecord? {
        guard tables.indices.contains(table) else { return nil }
        // Fields through the buffer: a method call on `tables[table]` (or
        // on the buffer's element) copied the whole table, a retain and a
        // release of each of its parts, on every property read.
        return tables.withUnsafeBufferPointer { tables in
            if let deferred = tables[table].deferred { return deferred.record(forKey: key.rawValue) }
            return tables[table].ownObjects[key.rawValue]
        }
    }

    /// Whether object `key` exists in `table`. O(log n).
    public func contains(table: Int, key: ObjectKey) -> Bool { object(table: table, key: key) != nil }

    /// The number of objects in `table`. O(1).
    public func count(table: Int) -> Int {
        guard tables.indices.contains(table) else { return 0 }
        return tables.withUnsafeBufferPointer { $0[table].deferred?.count ?? $0[table].ownObjects.count }
    }

    /// The objects of `table` with keys `>= start`, in ascending key order, lazily.
    ///
    /// - Complexity: O(1) to make; see ``ObjectSequence``.
    public func objects(table: Int, from start: ObjectKey = ObjectKey(0)) -> ObjectSequence {
        ObjectSequence(objects: tables.indices.contains(table) ? tables[table].objects : .init(), start: start.rawValue)
    }

    /// The object of `table` whose primary key is `primaryKey`. O(1) expected.
    public func key(table: Int, primaryKey: PersistedValue) -> ObjectKey? {
        guard tables.indices.contains(table) else { return nil }
        // Through the buffer, as `object(table:key:)` reads: the index's
        // subscript on `tables[table].ownPrimaryKeyIndex` copied the whole
        // index (a retain and a release of each of its tries) per look-up.
        return tables.withUnsafeBufferPointer { tables in
            let storage = tables.baseAddress.unsafelyUnwrapped + table
            if let deferred = storage.pointee.deferred { return deferred.key(forPrimaryKey: primaryKey) }
            return PrimaryKeyIndex.object(forPrimaryKey: primaryKey, in: Table.primaryKeyIndex(of: storage))
        }
    }

    /// The objects of `table` whose `property` equals `value`, in ascending
    /// key order, or `nil` if the property has no index (only indexed,
    /// non-collection properties and the primary key do).
    ///
    /// - Complexity: O(1) expected plus the size of the result.
    public func keys(table: Int, property: Int, equalTo value: PersistedValue) -> [ObjectKey]? {
        guard tables.indices.contains(table), schema[table].properties.indices.contains(property) else { return nil }
        let storage = tables[table]
        if property == storage.primaryKey { return key(table: table, primaryKey: value).map { [$0] } ?? [] }
        guard let index = storage.secondaryIndexes[property] else { return nil }
        return index[value]?.elements ?? []
    }

    /// The links into object `key` of `table`, sorted by (table, key,
    /// property); an object listed twice in a list links twice. O(log n).
    public func backlinks(table: Int, key: ObjectKey) -> [Backlink] {
        tables.indices.contains(table) ? tables[table].backlinks[key.rawValue]?.elements ?? [] : []
    }

    /// The key a writer should give the next object of `table`: one more
    /// than the largest key ever used there (keys are never reused). O(1).
    public func nextKey(table: Int) -> ObjectKey {
        ObjectKey(tables.indices.contains(table) ? tables[table].nextKey : 1)
    }
}
