/// The storage of one type in a ``StoreState``: its objects and the indexes
/// kept in step with them. Every part is a persistent map, so copying a
/// table is O(1) and an edit copies O(log n) nodes.
struct Table: Sendable {
    /// The objects, by key.
    var objects = PersistentIntMap<ObjectRecord>()
    /// The primary-key property, if the type has one.
    var primaryKey: Int?
    /// Primary-key value → object.
    var primaryKeyIndex = PersistentHashMap<PersistedValue, ObjectKey>()
    /// One entry per property: for indexed, non-collection properties, a
    /// value → keys (ascending) index; `nil` otherwise.
    var secondaryIndexes: [PersistentHashMap<PersistedValue, [ObjectKey]>?] = []
    /// Target object key → the links into it, sorted.
    var backlinks = PersistentIntMap<[Backlink]>()
    /// One more than the largest key ever used.
    var nextKey: Int64 = 1

    init(schema: TypeSchema) {
        primaryKey = schema.primaryKeyIndex
        secondaryIndexes = schema.properties.map(Self.emptyIndex)
    }

    /// An empty secondary index if `property` is indexed.
    static func emptyIndex(for property: PropertySchema) -> PersistentHashMap<PersistedValue, [ObjectKey]>? {
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

    /// Files `key` under `value` in the secondary index of `property`. O(log n + bucket).
    mutating func index(_ key: ObjectKey, value: PersistedValue, property: Int) {
        var keys = secondaryIndexes[property]![value] ?? []
        keys.insert(key, at: keys.insertionPoint(of: key))
        secondaryIndexes[property]![value] = keys
    }

    /// Removes `key` from under `value` in the secondary index of `property`.
    mutating func unindex(_ key: ObjectKey, value: PersistedValue, property: Int) {
        guard var keys = secondaryIndexes[property]![value] else { return }
        let position = keys.insertionPoint(of: key)
        guard position < keys.count, keys[position] == key else { return }
        keys.remove(at: position)
        secondaryIndexes[property]![value] = keys.isEmpty ? nil : keys
    }

    // MARK: Backlinks

    /// Records one more link into object `target`.
    mutating func addBacklink(_ link: Backlink, to target: ObjectKey) {
        var links = backlinks[target.rawValue] ?? []
        links.insert(link, at: links.insertionPoint(of: link))
        backlinks[target.rawValue] = links
    }

    /// Forgets one link into object `target`.
    mutating func removeBacklink(_ link: Backlink, from target: ObjectKey) {
        guard var links = backlinks[target.rawValue] else { return }
        let position = links.insertionPoint(of: link)
        guard position < links.count, links[position] == link else { return }
        links.remove(at: position)
        backlinks[target.rawValue] = links.isEmpty ? nil : links
    }
}

extension Array where Element: Comparable {
    /// The first position whose element is not less than `element`, in a
    /// sorted array. O(log n).
    func insertionPoint(of element: Element) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
