/// Restores one table of a checkpoint in bulk: decodes its objects in the
/// ascending key order the file holds them in (``decodeObject(key:primaryKeyField:values:checkingWith:links:)``),
/// checks each as the fold would, and gathers what the derived parts need,
/// then builds the object trie, the primary-key index and the secondary
/// indexes once each (``finish(into:)``).
///
/// Inserting object by object, every object walked and path-copied the
/// object trie, the primary-key trie and a secondary index, and grew a
/// sorted chunk: ten times the cost of decoding it.
///
/// - Complexity: ``decodeObject(key:primaryKeyField:values:checkingWith:links:)`` amortised O(size of
///   the object) (O(1) expected per indexed value); ``finish(into:)`` O(n log n) at
///   worst, O(n) when primary keys ascend with object keys.
struct TableRestorer {
    /// What checking and indexing a value needs of its property, without
    /// copying the property's strings once per value.
    private struct Slot {
        /// A single, non-link value: checked inline (else by ``StoreState/check(_:fits:)``).
        var isPlain: Bool
        var type: PropertyType
        var isOptional: Bool
        /// For link properties: the target table, or `nil` if its type is undefined.
        var linkTarget: Int?
        var isLink: Bool
        /// The position of the property's group in ``TableRestorer/groups`` if it has a secondary index.
        var group: Int?
    }

    /// Objects by value, for one secondary index.
    private struct Group {
        var property: Int
        var values: ValueGroups
    }

    let table: Int
    private let nextKey: Int64
    private let slots: [Slot]
    private let primaryKey: Int?
    private var objects = PersistentIntMap<ObjectRecord>.Builder()
    private var primaryIntegers: [(value: Int64, key: ObjectKey)] = []
    private var primaryOthers: ContiguousArray<(key: PersistedValue, value: ObjectKey)> = []
    private var groups: [Group] = []
    /// The objects' keys in order, for the groups (kept only if there are any).
    private var keys: [ObjectKey] = []

    /// Whether objects come with their primary key as a field to check
    /// (``CheckpointFile/primaryKeyField(_:)``), and whether those ascend.
    private let checksPrimaryKeyField: Bool
    private let primaryKeysAscend: Bool
    private var lastPrimaryKeyField: Int64 = -1
    /// Where each object's values are decoded before its record is made:
    /// one buffer for all, not an array allocated and freed per object.
    private var scratch = ContiguousArray<PersistedValue>()

    /// A restorer for `table` of `state`, whose schema and next keys are restored already.
    /// - Parameters:
    ///   - count: how many objects the file says follow (a hint for capacity only).
    ///   - primaryKeyField: whether each object comes with its primary-key field, to check.
    ///   - ascending: whether those fields must ascend.
    init(table: Int, of state: StoreState, count: Int, primaryKeyField: Bool = false, ascending: Bool = false) {
        checksPrimaryKeyField = primaryKeyField
        primaryKeysAscend = ascending
        self.table = table
        let storage = state.tables[table]
        nextKey = storage.nextKey
        primaryKey = storage.primaryKey
        var groups: [Group] = []
        slots = state.schema[table].properties.indices.map { index in
            let property = state.schema[table].properties[index]
            var group: Int?
            if storage.secondaryIndexes[index] != nil {
                group = groups.count
                groups.append(Group(property: index, values: ValueGroups(capacity: count)))
            }
            return Slot(isPlain: property.collection == .none && property.type != .object,
                        type: property.type, isOptional: property.isOptional,
                        linkTarget: state.linkTable(property), isLink: property.type == .object, group: group)
        }
        self.groups = groups
        if primaryKey != nil { primaryIntegers.reserveCapacity(count) }
        if !groups.isEmpty { keys.reserveCapacity(count) }
    }

    /// Decodes object `key` from the bytes of its values (in the checkpoint
    /// file's layout, which they must fill exactly), checks its primary-key
    /// field if the file has them, and adds it, as
    /// ``add(key:values:checkingWith:links:)``.
    /// - Throws: ``BinaryReader/Malformed`` or ``FoldError/Reason``.
    mutating func decodeObject(key: Int64, primaryKeyField: Int64, values bytes: UnsafeRawBufferPointer,
                               checkingWith state: StoreState, links: inout [[(target: Int64, link: Backlink)]]) throws {
        var r = BinaryReader(bytes)
        var values = scratch
        scratch = []
        values.removeAll(keepingCapacity: true)
        values.reserveCapacity(slots.count)
        defer { scratch = values }
        for slot in slots {
            if let group = slot.group {
                values.append(try groups[group].values.decode(&r))
            } else {
                values.append(try CheckpointFile.decodeValue(&r))
            }
        }
        guard r.isAtEnd else { throw r.fail("\(r.remaining) bytes after the object's values") }
        if checksPrimaryKeyField, let primaryKey, values.indices.contains(primaryKey) {
            let field = CheckpointFile.primaryKeyField(values[primaryKey])
            guard field == primaryKeyField, !primaryKeysAscend || field > lastPrimaryKeyField else {
                throw r.fail("object \(key)'s primary-key field disagrees with its value or its order")
            }
            lastPrimaryKeyField = field
        }
        try add(key: ObjectKey(key), values: values, checkingWith: state, links: &links)
    }

    /// Adds object `key` (whose indexed values ``decodeObject(key:primaryKeyField:values:checkingWith:links:)``
    /// filed as it decoded them), checking its values but for links (their targets
    /// may come later in the file; see ``StoreState/checkRestored()``), and
    /// files its links, by target table, in `links`.
    private mutating func add(key: ObjectKey, values: ContiguousArray<PersistedValue>, checkingWith state: StoreState,
                              links: inout [[(target: Int64, link: Backlink)]]) throws(FoldError.Reason) {
        guard values.count == slots.count else { throw .valueCount(expected: slots.count, actual: values.count) }
        guard key.rawValue >= 0, key.rawValue < nextKey else { throw .invalidKey(key) }
        // The writer lists objects in ascending key order; anything else is not its file.
        if key.rawValue == objects.lastKey { throw .keyInUse(table: table, key: key) }
        if key.rawValue < objects.lastKey { throw .invalidKey(key) }
        for index in values.indices {
            let slot = slots[index]
            let value = values[index]
            if slot.isPlain {
                if value.isNull ? !slot.isOptional : !slot.type.accepts(value) {
                    try state.check(value, fits: state.schema[table].properties[index])
                }
            } else if slot.isLink {
                guard let target = slot.linkTarget else { throw .undefinedType(state.schema[table].properties[index].objectType ?? "") }
                let link = Backlink(table: table, key: key, property: index)
                for targetKey in value.linkedKeys {
                    // A negative key can never be live (and no trie can hold it).
                    guard targetKey.rawValue >= 0 else { throw .danglingLink(table: target, key: targetKey) }
                    links[target].append((targetKey.rawValue, link))
                }
            } else {
                try state.check(value, fits: state.schema[table].properties[index])
            }
        }
        if let primaryKey {
            if case .int(let integer) = values[primaryKey], integer >= 0 {
                primaryIntegers.append((integer, key))
            } else {
                primaryOthers.append((values[primaryKey], key))
            }
        }
        if !groups.isEmpty { keys.append(key) }
        objects.append(ObjectRecord(values), forKey: key.rawValue)
    }

    /// Builds the table's objects and indexes into `state`.
    /// - Throws: ``FoldError/Reason/duplicatePrimaryKey(_:existing:)`` if two objects share a primary key.
    consuming func finish(into state: inout StoreState) throws(FoldError.Reason) {
        var storage = state.tables[table]
        storage.objects = objects.build()
        if primaryKey != nil {
            // Ids counted up with the objects are already in order.
            if !zip(primaryIntegers, primaryIntegers.dropFirst()).allSatisfy({ $0.value < $1.value }) {
                primaryIntegers.sort { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }
            }
            var previous: (value: Int64, key: ObjectKey)?
            for (value, key) in primaryIntegers {
                // Sorted by key within a value: `previous` is the object that had it first.
                if let previous, previous.value == value { throw .duplicatePrimaryKey(.int(value), existing: previous.key) }
                previous = (value, key)
            }
            let others: PersistentHashMap<PersistedValue, ObjectKey>
            switch PersistentHashMap<PersistedValue, ObjectKey>.building(from: primaryOthers) {
            case .success(let map): others = map
            case .failure(let pair):
                throw .duplicatePrimaryKey(primaryOthers[pair.second].key, existing: primaryOthers[pair.first].value)
            }
            // Ascending and distinct: a run while they follow the objects'
            // keys, the int trie from the first that does not.
            var index = PrimaryKeyIndex(integers: PersistentIntMap(), others: others)
            let ids = primaryIntegers
            index.appendIntegers(count: ids.count, key: { ids[$0].value }, object: { ids[$0].key })
            storage.primaryKeyIndex = index
        }
        for group in groups {
            let entries = ContiguousArray(zip(group.values.values, group.values.groups(keys: keys)).map {
                (key: $0, value: SortedChunks(ascending: $1))
            })
            switch PersistentHashMap<PersistedValue, SortedChunks<ObjectKey>>.building(from: entries) {
            case .success(let index):
                storage.secondaryIndexes[group.property] = index
            case .failure:
                // Equal strings with different bytes (see ``ValueGroups``): file them by value.
                for (value, keys) in entries {
                    for key in keys { storage.index(key, value: value, property: group.property) }
                }
            }
        }
        state.tables[table] = storage
    }
}
