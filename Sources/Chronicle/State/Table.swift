/// The storage of one type in a ``StoreState``: its objects and the indexes
/// kept in step with them. Every part is a persistent map, so copying a
/// table is O(1) and an edit copies O(log n) nodes.
struct Table: Sendable {
    /// The objects, by key.
    var objects = PersistentIntMap<ObjectRecord>()
    /// The primary-key property, if the type has one.
    var primaryKey: Int?
    /// Primary-key value → object.
    var primaryKeyIndex = PrimaryKeyIndex()
    /// One entry per property: for indexed, non-collection properties, a
    /// value → keys (ascending) index; `nil` otherwise.
    var secondaryIndexes: [PersistentHashMap<PersistedValue, SortedChunks<ObjectKey>>?] = []
    /// Target object key → the links into it, sorted.
    var backlinks = PersistentIntMap<SortedChunks<Backlink>>()
    /// One more than the largest key ever used.
    var nextKey: Int64 = 1

    init(schema: TypeSchema) {
        primaryKey = schema.primaryKeyIndex
        secondaryIndexes = schema.properties.map(Self.emptyIndex)
    }

    /// An empty secondary index if `property` is indexed.
    static func emptyIndex(for property: PropertySchema) -> PersistentHashMap<PersistedValue, SortedChunks<ObjectKey>>? {
        property.isIndexed && property.collection == .none ? PersistentHashMap() : nil
    }

    // MARK: Indexes

    /// Adds `key` to the primary-key and secondary indexes under `record`'s values.
    mutating func index(_ key: ObjectKey, _ record: ObjectRecord) {
        if let primaryKey { primaryKeyIndex[record.values[primaryKey]] = key }
        for property in secondaryIndexes.indices where secondaryIndexes[property] != nil {
            index(key, value: record.values[property], property: property)
        }
    }

    /// Removes `key` from the primary-key and secondary indexes.
    mutating func unindex(_ key: ObjectKey, _ record: ObjectRecord) {
        if let primaryKey { primaryKeyIndex[record.values[primaryKey]] = nil }
        for property in secondaryIndexes.indices where secondaryIndexes[property] != nil {
            unindex(key, value: record.values[property], property: property)
        }
    }

    /// Files `key` under `value` in the secondary index of `property`.
    /// O(log n + chunk); see ``SortedChunks``.
    mutating func index(_ key: ObjectKey, value: PersistedValue, property: Int) {
        secondaryIndexes[property]!.modifyValue(forKey: value, default: SortedChunks.init) { $0.insert(key) }
    }

    /// Removes `key` from under `value` in the secondary index of `property`.
    mutating func unindex(_ key: ObjectKey, value: PersistedValue, property: Int) {
        var emptied = false
        secondaryIndexes[property]!.modifyValue(forKey: value, default: SortedChunks.init) { keys in
            keys.remove(key)
            emptied = keys.isEmpty
        }
        if emptied { secondaryIndexes[property]![value] = nil }
    }

    // MARK: Backlinks

    /// Records one more link into object `target`.
    mutating func addBacklink(_ link: Backlink, to target: ObjectKey) {
        backlinks.modifyValue(forKey: target.rawValue, default: SortedChunks.init) { $0.insert(link) }
    }

    /// Forgets one link into object `target`.
    mutating func removeBacklink(_ link: Backlink, from target: ObjectKey) {
        var emptied = false
        backlinks.modifyValue(forKey: target.rawValue, default: SortedChunks.init) { links in
            links.remove(link)
            emptied = links.isEmpty
        }
        if emptied { backlinks[target.rawValue] = nil }
    }
}
