/// History and diffs, computed by folding: every change the fold made counts,
/// including those it made on its own (links cleared by a deletion, embedded
/// objects deleted with their owner).
extension TimeTravel {
    /// Every commit through `last` that changed the value at `path` (property
    /// names from the object, following links) of object `key` of `table`,
    /// its creation and its deletion included.
    ///
    /// - Complexity: a fold from the newest checkpoint before the object was
    ///   created to its deletion (or `last`); O(length of `path`) per commit.
    ///
    /// With `followingRenames`, a property a migration renamed is followed
    /// back to its old name (the first name of `path`, on the object itself).
    func history(table: Int, key: ObjectKey, path: [String], through last: UInt64,
                 followingRenames: Bool = true) throws(StoreError) -> [PropertyHistoryEntry] {
        var entries: [PropertyHistoryEntry] = []
        let name = path.joined(separator: ".")
        var state = checkpoints?.lastBeforeCreation(table: table, key: key, atOrBefore: last) ?? StoreState()
        let renames = followingRenames && !path.isEmpty ? try propertyRenames(table: table, after: state, through: last) : []
        func pathName(at version: UInt64) -> [String] {
            renames.isEmpty ? path : [renames.name(path[0], at: version)] + path.dropFirst()
        }
        try walk(from: &state, through: last) { commit, before, after, _ in
            let old = before.value(table: table, key: key, path: pathName(at: before.version))
            let new = after.value(table: table, key: key, path: pathName(at: after.version))
            if old != new {
                entries.append(PropertyHistoryEntry(version: commit.version, timestamp: commit.timestamp, label: commit.label,
                                                    property: name, oldValue: old, newValue: new))
            }
            // Keys are never reused: once deleted, the object's history is over.
            return !(old != nil && new == nil)
        }
        return entries
    }

    /// Every commit through `last` that created, changed or deleted object `key` of `table`.
    ///
    /// - Complexity: a fold from the newest checkpoint before the object was
    ///   created to its deletion (or `last`).
    func history(table: Int, key: ObjectKey, through last: UInt64) throws(StoreError) -> [ObjectHistoryEntry] {
        var entries: [ObjectHistoryEntry] = []
        var state = checkpoints?.lastBeforeCreation(table: table, key: key, atOrBefore: last) ?? StoreState()
        try walk(from: &state, through: last) { commit, before, after, changes in
            func entry(_ change: ObjectHistoryEntry.Change) {
                entries.append(ObjectHistoryEntry(version: commit.version, timestamp: commit.timestamp, label: commit.label,
                                                  change: change))
            }
            let properties = after.schema.indices.contains(table) ? after.schema[table].properties : []
            if changes.isInserted(table: table, key: key), let record = after.object(table: table, key: key) {
                entry(.created(zip(properties, record.values).map { PropertyValue(name: $0.name, value: $1) }))
            } else if changes.isDeleted(table: table, key: key), let record = before.object(table: table, key: key) {
                // The values it had at the version before (not mid-commit ones).
                entry(.deleted(zip(properties, record.values).map { PropertyValue(name: $0.name, value: $1) }))
                return false
            } else if let modification = changes.modification(table: table, key: key) {
                entry(.modified(modification.properties.map {
                    PropertyValueChange(name: properties[$0.property].name, oldValue: $0.oldValue, newValue: $0.newValue)
                }))
            }
            return true
        }
        return entries
    }

    /// What differs between the states at `from` and `to` (in either order).
    ///
    /// - Complexity: a fold from the nearest checkpoint to the later version,
    ///   plus O(objects the commits in between touched).
    func diff(from: UInt64, to: UInt64) throws(StoreError) -> StoreDiff {
        let (low, high) = (min(from, to), max(from, to))
        var state = try self.state(at: low)
        let lowState = state
        var touched = Set<TableKey>()
        var schemaChanges: [Event] = []
        try walk(from: &state, through: high) { commit, _, _, changes in
            touched.formUnion(changes.insertions)
            touched.formUnion(changes.deletions)
            for modification in changes.modifications { touched.insert(TableKey(table: modification.table, key: modification.key)) }
            for event in commit.events {
                switch event {
                case .defineType, .addProperty, .changeSchema: schemaChanges.append(event)
                default: break
                }
            }
            return true
        }
        let (old, new) = from <= to ? (lowState, state) : (state, lowState)
        var inserted: [ObjectSnapshot] = [], deleted: [ObjectSnapshot] = [], modified: [ObjectDiff] = []
        for object in touched.sorted(by: { ($0.table, $0.key) < ($1.table, $1.key) }) {
            switch (old.object(table: object.table, key: object.key), new.object(table: object.table, key: object.key)) {
            case (nil, let record?):
                inserted.append(new.snapshot(object, record))
            case (let record?, nil):
                deleted.append(old.snapshot(object, record))
            case (let before?, let after?):
                // By name: a migration between the versions may have
                // removed or reordered properties (those only one side has
                // are among the schema changes).
                let oldSchema = old.schema[object.table]
                let changes = new.schema[object.table].properties.enumerated().compactMap { index, property -> PropertyValueChange? in
                    guard let oldIndex = oldSchema.propertyIndex(named: property.name),
                          before.values[oldIndex] != after.values[index] else { return nil }
                    return PropertyValueChange(name: property.name, oldValue: before.values[oldIndex], newValue: after.values[index])
                }
                if !changes.isEmpty {
                    let type = new.schema[object.table]
                    modified.append(ObjectDiff(typeName: type.name, table: object.table, key: object.key,
                                               primaryKey: type.primaryKeyIndex.map { after.values[$0] }, changes: changes))
                }
            case (nil, nil):
                break
            }
        }
        return StoreDiff(from: from, to: to, inserted: inserted, deleted: deleted, modified: modified, schemaChanges: schemaChanges)
    }
}

extension StoreState {
    /// The value at `path` (property names, following links) of object `key`
    /// of `table`; `nil` when the object does not exist. A link that is `nil`
    /// (or a missing property) reads `.null`; a list or set of links reads as
    /// a list of the linked objects' values.
    func value(table: Int, key: ObjectKey, path: [String]) -> PersistedValue? {
        guard let record = object(table: table, key: key) else { return nil }
        return value(of: record, table: table, path: path[...])
    }

    private func value(of record: ObjectRecord, table: Int, path: ArraySlice<String>) -> PersistedValue {
        guard let name = path.first, let property = schema[table].propertyIndex(named: name) else { return .null }
        let value = record.values[property]
        let rest = path.dropFirst()
        guard !rest.isEmpty else { return value }
        guard let target = linkTable(schema[table].properties[property]) else { return .null }
        func follow(_ element: PersistedValue) -> PersistedValue {
            guard case .link(let key) = element, let linked = object(table: target, key: key) else { return .null }
            return self.value(of: linked, table: target, path: rest)
        }
        switch value {
        case .link: return follow(value)
        case .list(let elements), .set(let elements): return .list(elements.map(follow))
        default: return .null
        }
    }

    /// An object as a snapshot with named values.
    func snapshot(_ object: TableKey, _ record: ObjectRecord) -> ObjectSnapshot {
        let type = schema[object.table]
        return ObjectSnapshot(typeName: type.name, table: object.table, key: object.key,
                              primaryKey: type.primaryKeyIndex.map { record.values[$0] },
                              values: zip(type.properties, record.values).map { PropertyValue(name: $0.name, value: $1) })
    }
}
