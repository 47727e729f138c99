/// The storage of one type in a ``StoreState``: its objects and the indexes
/// kept in step with them. Every part is a persistent map, so copying a
/// table is O(1) and an edit copies O(log n) nodes.
///
/// A table loaded from a checkpoint file may be *deferred* (``deferred``):
/// its parts are then built on first use (see ``DeferredTable``). Reading a
/// part builds it for every state sharing the deferred table; changing a
/// part first copies the built parts into this value, which then no longer
/// defers. ``StoreState``'s reads of one object, by key or primary key, and
/// its counts answer without building.
struct Table: Sendable {
    /// Where the parts come from while they are not built into this value.
    private(set) var deferred: (any DeferredTable)?
    /// The objects when not deferred (``objects`` reads the deferred
    /// table's). Read directly only by hot paths that checked ``deferred``:
    /// through a method or a computed property, a table in an array is
    /// copied whole (a retain and a release of each part) first.
    private(set) var ownObjects = PersistentIntMap<ObjectRecord>()
    /// The primary-key index when not deferred; see ``ownObjects``.
    private(set) var ownPrimaryKeyIndex = PrimaryKeyIndex()
    private var ownSecondaryIndexes: [PersistentHashMap<PersistedValue, SortedChunks<ObjectKey>>?] = []
    private var ownBacklinks = PersistentIntMap<SortedChunks<Backlink>>()
    /// The primary-key property, if the type has one.
    var primaryKey: Int?
    /// One more than the largest key ever used.
    var nextKey: Int64 = 1

    init(schema: TypeSchema) {
        primaryKey = schema.primaryKeyIndex
        ownSecondaryIndexes = schema.properties.map(Self.emptyIndex)
    }

    /// A table of `schema` whose objects and indexes `deferred` holds.
    init(schema: TypeSchema, deferred: any DeferredTable, nextKey: Int64) {
        self.init(schema: schema)
        self.deferred = deferred
        self.nextKey = nextKey
    }

    /// Where the ``ownPrimaryKeyIndex`` of the table at `table` lies, for
    /// ``PrimaryKeyIndex/object(forPrimaryKey:in:)``. (A stored property's
    /// offset: the optimiser folds it to a constant.)
    @inline(__always)
    static func primaryKeyIndex(of table: UnsafePointer<Table>) -> UnsafePointer<PrimaryKeyIndex> {
        (UnsafeRawPointer(table) + MemoryLayout<Table>.offset(of: \Table.ownPrimaryKeyIndex)!)
            .assumingMemoryBound(to: PrimaryKeyIndex.self)
    }

    /// The objects, by key.
    var objects: PersistentIntMap<ObjectRecord> {
        get { deferred?.built().ownObjects ?? ownObjects }
        _modify {
            undefer()
            yield &ownObjects
        }
    }

    /// Primary-key value → object.
    var primaryKeyIndex: PrimaryKeyIndex {
        get { deferred?.built().ownPrimaryKeyIndex ?? ownPrimaryKeyIndex }
        _modify {
            undefer()
            yield &ownPrimaryKeyIndex
        }
    }

    /// One entry per property: for indexed, non-collection properties, a
    /// value → keys (ascending) index; `nil` otherwise.
    var secondaryIndexes: [PersistentHashMap<PersistedValue, SortedChunks<ObjectKey>>?] {
        get { deferred?.built().ownSecondaryIndexes ?? ownSecondaryIndexes }
        _modify {
            undefer()
            yield &ownSecondaryIndexes
        }
    }

    /// Target object key → the links into it, sorted. A deferred table's,
    /// without building it (``DeferredTable/backlinks``).
    var backlinks: PersistentIntMap<SortedChunks<Backlink>> {
        get { deferred?.backlinks ?? ownBacklinks }
        _modify {
            undefer()
            yield &ownBacklinks
        }
    }

    /// ``objects``' `forEachLeaf(from:_:)`, streamed from a deferred table
    /// when it can (see ``DeferredTable/forEachLeaf(from:_:)``).
    func forEachLeaf(from start: Int64,
                     _ body: (_ base: Int64, _ bits: UInt64, _ values: UnsafeBufferPointer<ObjectRecord>) -> Bool) {
        if let deferred, deferred.forEachLeaf(from: start, body) { return }
        objects.forEachLeaf(from: start, body)
    }

    /// Copies the deferred table's built parts into this value, so it can
    /// change them. O(1) once built.
    private mutating func undefer() {
        guard let deferred else { return }
        let built = deferred.built()
        ownObjects = built.ownObjects
        ownPrimaryKeyIndex = built.ownPrimaryKeyIndex
        ownSecondaryIndexes = built.ownSecondaryIndexes
        ownBacklinks = built.ownBacklinks
        self.deferred = nil
    }

    /// This table as an in-memory checkpoint keeps it: deferred to an
    /// ``UnindexedTable`` without its secondary indexes of at least
    /// `minimum` values, nor its primary-key index's hash trie when that
    /// holds at least `minimum` keys; itself when it has neither, or is
    /// deferred already. O(properties).
    func withoutLargeIndexes(from minimum: Int) -> Table {
        guard deferred == nil, let unindexed = UnindexedTable(self, droppingIndexesFrom: minimum) else { return self }
        var kept = self
        // The parts are the deferred table's now: none kept here.
        kept.deferred = unindexed
        kept.ownObjects = PersistentIntMap()
        kept.ownPrimaryKeyIndex = PrimaryKeyIndex()
        kept.ownSecondaryIndexes = ownSecondaryIndexes.map { $0.map { _ in PersistentHashMap() } }
        kept.ownBacklinks = PersistentIntMap()
        return kept
    }

    /// Empties the secondary index of `property` (for ``UnindexedTable``);
    /// the table must not be deferred.
    mutating func emptySecondaryIndex(_ property: Int) {
        undefer()
        ownSecondaryIndexes[property] = PersistentHashMap()
    }

    /// Empties the primary-key index's hash trie, keeping its integer ids
    /// (for ``UnindexedTable``); the table must not be deferred.
    mutating func emptyPrimaryKeyHashTrie() {
        undefer()
        ownPrimaryKeyIndex = ownPrimaryKeyIndex.withoutOthers
    }

    /// Files every object whose primary key the index's hash trie takes
    /// there; the trie is empty (an ``UnindexedTable`` building its table).
    /// O(objects + n log n) for the n it files.
    mutating func fillPrimaryKeyHashTrie() {
        undefer()
        guard let primaryKey else { return }
        var entries = ContiguousArray<(key: PersistedValue, value: ObjectKey)>()
        for (key, record) in ownObjects {
            let value = record[primaryKey]
            if PrimaryKeyIndex.isOther(value) { entries.append((key: value, value: ObjectKey(key))) }
        }
        ownPrimaryKeyIndex = ownPrimaryKeyIndex.with(others: entries)
    }

    /// Files every object in the secondary indexes of `properties`, which
    /// are empty (an ``UnindexedTable`` building its table). Objects in
    /// ascending key order: each key list only appends.
    /// O(objects × properties).
    mutating func fillSecondaryIndexes(_ properties: [Int]) {
        undefer()
        for (key, record) in ownObjects {
            for property in properties { index(ObjectKey(key), value: record[property], property: property) }
        }
    }

    /// An empty secondary index if `property` is indexed.
    static func emptyIndex(for property: PropertySchema) -> PersistentHashMap<PersistedValue, SortedChunks<ObjectKey>>? {
        property.isIndexed && property.collection == .none ? PersistentHashMap() : nil
    }

    // MARK: Indexes

    // These edit the table's own parts directly (after `undefer()`): through
    // the accessors, each test of an index would copy the array of them.

    /// Adds `key` to the primary-key and secondary indexes under `record`'s values.
    mutating func index(_ key: ObjectKey, _ record: ObjectRecord) {
        undefer()
        if let primaryKey { ownPrimaryKeyIndex[record[primaryKey]] = key }
        for property in ownSecondaryIndexes.indices where ownSecondaryIndexes[property] != nil {
            index(key, value: record[property], property: property)
        }
    }

    /// Adds `key` to the indexes under `values`, a new object's (which its
    /// record holds too: reading them here makes no value from the record).
    // Inlined, so that it is compiled for each kind of values: left
    // generic, it looked the type metadata up on every call.
    @inline(__always)
    mutating func index<Values: RandomAccessCollection>(_ key: ObjectKey, values: Values)
    where Values.Element == PersistedValue, Values.Index == Int {
        undefer()
        if let primaryKey { ownPrimaryKeyIndex[values[primaryKey]] = key }
        for property in ownSecondaryIndexes.indices where ownSecondaryIndexes[property] != nil {
            index(key, value: values[property], property: property)
        }
    }

    /// Adds `count` new objects — the `i`th `key(i)` holding `record(i)` —
    /// to the objects and the primary-key index, and notes their
    /// secondary-index entries in `pending`, as ``index(_:values:table:deferring:)``
    /// and setting ``objects`` for each would, in order.
    ///
    /// Only for keys that ascend from ``nextKey`` on and, with a primary
    /// key, integer primary keys (`primaryKey(i)`) that ascend from above
    /// the index's largest: both tries then take them with
    /// ``PersistentIntMap/appendAscending(count:key:value:)``. `record(i)`
    /// is asked for once, in order.
    ///
    /// - Complexity: O(`count` + leaves touched × log64 n).
    @inline(__always)
    mutating func appendObjects(count: Int, key: (Int) -> ObjectKey, record: (Int) -> ObjectRecord,
                                primaryKey: (Int) -> Int64, table: Int, deferring pending: inout PendingIndexEntries) {
        guard count > 0 else { return }
        undefer()
        let indexed = ownSecondaryIndexes.indices.filter { ownSecondaryIndexes[$0] != nil }
        // Each record noted for its indexes as it goes into the trie: asked
        // for once, it is retained once.
        ownObjects.appendAscending(count: count, key: { key($0).rawValue }) { object in
            let record = record(object)
            for property in indexed {
                pending.add(key(object), table: table, property: property, from: record)
            }
            return record
        }
        if self.primaryKey != nil { ownPrimaryKeyIndex.appendIntegers(count: count, key: primaryKey, object: key) }
        nextKey = max(nextKey, key(count - 1).rawValue + 1)
    }

    /// Removes `key` from the primary-key and secondary indexes.
    mutating func unindex(_ key: ObjectKey, _ record: ObjectRecord) {
        undefer()
        if let primaryKey { ownPrimaryKeyIndex[record[primaryKey]] = nil }
        for property in ownSecondaryIndexes.indices where ownSecondaryIndexes[property] != nil {
            unindex(key, value: record[property], property: property)
        }
    }

    /// Adds `key` to the primary-key index under `values`' primary key,
    /// and notes in `pending` where its indexed values go, for the fold or
    /// the write to file them with others (see ``PendingIndexEntries``).
    /// `record` holds `values`: the notes read an integer or a short string
    /// from its slot, with no ``PersistedValue`` made.
    @inline(__always)
    mutating func index<Values: RandomAccessCollection>(_ key: ObjectKey, values: Values, record: ObjectRecord, table: Int,
                                                        deferring pending: inout PendingIndexEntries)
    where Values.Element == PersistedValue, Values.Index == Int {
        undefer()
        if let primaryKey { ownPrimaryKeyIndex[values[primaryKey]] = key }
        for property in ownSecondaryIndexes.indices where ownSecondaryIndexes[property] != nil {
            pending.add(key, table: table, property: property, from: record)
        }
    }

    /// Files `keys` under `value` (whose `trieHash` is `hash`) in the
    /// secondary index of `property`, with one walk to the value.
    /// O(log n + keys × log chunk).
    mutating func index(_ keys: UnsafeBufferPointer<ObjectKey>, value: PersistedValue, hash: UInt64, property: Int) {
        undefer()
        ownSecondaryIndexes[property]!.modifyValue(forKey: value, hash: hash, default: SortedChunks.init) { list in
            list.insert(contentsOf: keys)
        }
    }

    /// Files `key` under `value` in the secondary index of `property`.
    /// O(log n + chunk); see ``SortedChunks``.
    mutating func index(_ key: ObjectKey, value: PersistedValue, property: Int) {
        undefer()
        ownSecondaryIndexes[property]!.modifyValue(forKey: value, default: SortedChunks.init) { $0.insert(key) }
    }

    /// Removes `key` from under `value` in the secondary index of `property`.
    mutating func unindex(_ key: ObjectKey, value: PersistedValue, property: Int) {
        undefer()
        var emptied = false
        ownSecondaryIndexes[property]!.modifyValue(forKey: value, default: SortedChunks.init) { keys in
            keys.remove(key)
            emptied = keys.isEmpty
        }
        if emptied { ownSecondaryIndexes[property]![value] = nil }
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
