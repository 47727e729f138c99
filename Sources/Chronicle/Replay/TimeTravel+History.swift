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
    /// `table` and `path` name them as at `last`. With `followingRenames`,
    /// the object is followed back across the migrations in between: a
    /// property they renamed (the first name of `path`, on the object
    /// itself) by its old name, a renamed type (its table stays), and a type
    /// removed before it (its table index moves).
    func history(table: Int, key: ObjectKey, path: [String], through last: UInt64,
                 followingRenames: Bool = true) throws(StoreError) -> [PropertyHistoryEntry] {
        var entries: [PropertyHistoryEntry] = []
        let name = path.joined(separator: ".")
        var state = checkpoints?.lastBeforeCreation(table: table, key: key, atOrBefore: last) ?? StoreState()
        let trail = followingRenames ? try self.trail(table: table, property: path.first, after: state, through: last) : nil
        func value(in state: StoreState) -> PersistedValue? {
            guard let trail, !trail.steps.isEmpty else { return state.value(table: table, key: key, path: path) }
            guard let (table, first) = trail.location(at: state.version) else { return nil }
            return state.value(table: table, key: key, path: first.map { [$0] + path.dropFirst() } ?? path)
        }
        try walk(from: &state, through: last) { commit, before, after, _ in
            let old = value(in: before)
            let new = value(in: after)
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
    func history(table last: Int, key: ObjectKey, through lastVersion: UInt64,
                 followingMigrations: Bool = true) throws(StoreError) -> [ObjectHistoryEntry] {
        var entries: [ObjectHistoryEntry] = []
        var state = checkpoints?.lastBeforeCreation(table: last, key: key, atOrBefore: lastVersion) ?? StoreState()
        let trail = followingMigrations ? try self.trail(table: last, property: nil, after: state, through: lastVersion) : nil
        try walk(from: &state, through: lastVersion) { commit, before, after, changes in
            // The object's table in this commit's numbering (a type removed
            // before it moves it down); none before its type was defined.
            guard let table = trail.map({ $0.location(at: commit.version)?.table }) ?? last else { return true }
            func entry(_ change: ObjectHistoryEntry.Change) {
                entries.append(ObjectHistoryEntry(version: commit.version, timestamp: commit.timestamp, label: commit.label,
                                                  change: change))
            }
            if changes.schemaChanged {
                // A migration changes objects without listing them, and its
                // change set numbers tables both before and after its
                // schema changes: compare the object itself, by identity.
                var lineage = SchemaLineage(before.schema)
                for event in commit.events { lineage.apply(event) }
                var comparison = Comparison(low: before, high: after, lineage: lineage)
                comparison.compare(table: table, key: key)
                if let created = comparison.inserted.first { entry(.created(created.values)) }
                if let deleted = comparison.deleted.first {
                    entry(.deleted(deleted.values))
                    return false
                }
                if let modified = comparison.modified.first { entry(.modified(modified.changes)) }
                return true
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
    /// Objects are compared by identity through the migrations in between
    /// (``SchemaLineage``): a property or type they renamed is named as at
    /// the later version, and what they changed on their own counts — a
    /// retyped value converted, a default filled in for an added property
    /// (old value `.null`), a removed property (new value `.null`).
    ///
    /// - Complexity: a fold from the nearest checkpoint to the later version,
    ///   plus O(objects the commits in between touched); O(objects) when a
    ///   schema change lies in between (a migration changes objects without
    ///   listing them).
    func diff(from: UInt64, to: UInt64) throws(StoreError) -> StoreDiff {
        let (low, high) = (min(from, to), max(from, to))
        var state = try self.state(at: low)
        let lowState = state
        var touched = Set<TableKey>()
        var schemaChanges: [Event] = []
        var lineage = SchemaLineage(lowState.schema)
        var schemaChanged = false
        try walk(from: &state, through: high) { commit, _, _, changes in
            schemaChanged = schemaChanged || changes.schemaChanged
            touched.formUnion(changes.insertions)
            touched.formUnion(changes.deletions)
            for modification in changes.modifications { touched.insert(TableKey(table: modification.table, key: modification.key)) }
            for event in commit.events {
                switch event {
                case .defineType, .addProperty, .changeSchema:
                    schemaChanges.append(event)
                    lineage.apply(event)
                default: break
                }
            }
            return true
        }
        var comparison = Comparison(low: lowState, high: state, lineage: lineage)
        if schemaChanged { comparison.compareAll() } else { comparison.compare(touched) }
        let forward = from <= to
        return StoreDiff(from: from, to: to,
                         inserted: forward ? comparison.inserted : comparison.deleted,
                         deleted: forward ? comparison.deleted : comparison.inserted,
                         modified: forward ? comparison.modified : comparison.modified.map(\.undone),
                         schemaChanges: schemaChanges)
    }

    /// Objects of two states compared through the lineage of the later
    /// one's schema: what the earlier one lacks, what the later one lacks,
    /// and what both have with other values. Ordered by table, then key,
    /// in the later state's numbering (the earlier one's for objects of
    /// types removed in between, after all others).
    struct Comparison {
        let low: StoreState
        let high: StoreState
        let lineage: SchemaLineage
        private(set) var inserted: [ObjectSnapshot] = []
        private(set) var deleted: [ObjectSnapshot] = []
        private(set) var modified: [ObjectDiff] = []

        init(low: StoreState, high: StoreState, lineage: SchemaLineage) {
            self.low = low
            self.high = high
            self.lineage = lineage
        }

        /// Compares the objects `touched` names; the schema did not change
        /// in between, so both states number tables alike.
        mutating func compare(_ touched: Set<TableKey>) {
            for object in touched.sorted(by: { ($0.table, $0.key) < ($1.table, $1.key) }) {
                compare(table: object.table, key: object.key)
            }
        }

        /// Compares every object of either state.
        /// - Complexity: O(objects).
        mutating func compareAll() {
            for table in high.schema.indices {
                var keys = Set(high.objects(table: table).map(\.0))
                if let origin = lineage.tables[table] { keys.formUnion(low.objects(table: origin).map(\.0)) }
                for key in keys.sorted() { compare(table: table, key: key) }
            }
            let kept = Set(lineage.tables.compactMap { $0 })
            for table in low.schema.indices where !kept.contains(table) {
                for (key, record) in low.objects(table: table) {
                    deleted.append(low.snapshot(TableKey(table: table, key: key), record))
                }
            }
        }

        /// Compares object `key` of `table` (the later state's numbering).
        mutating func compare(table: Int, key: ObjectKey) {
            let origin = lineage.tables.indices.contains(table) ? lineage.tables[table] : nil
            let before = origin.flatMap { low.object(table: $0, key: key) }
            let after = high.schema.indices.contains(table) ? high.object(table: table, key: key) : nil
            switch (before, after) {
            case (nil, let record?):
                inserted.append(high.snapshot(TableKey(table: table, key: key), record))
            case (let record?, nil):
                deleted.append(low.snapshot(TableKey(table: origin!, key: key), record))
            case (let before?, let after?):
                let type = high.schema[table]
                let old = low.schema[origin!]
                let mapping = lineage.properties[table]
                var changes: [PropertyValueChange] = []
                for (index, property) in type.properties.enumerated() {
                    let oldValue = mapping[index].map { before[$0] } ?? .null
                    if oldValue != after[index] {
                        changes.append(PropertyValueChange(name: property.name, oldValue: oldValue, newValue: after[index]))
                    }
                }
                let kept = Set(mapping.compactMap { $0 })
                for (index, property) in old.properties.enumerated() where !kept.contains(index) && before[index] != .null {
                    changes.append(PropertyValueChange(name: property.name, oldValue: before[index], newValue: .null))
                }
                if !changes.isEmpty {
                    modified.append(ObjectDiff(typeName: type.name, table: table, key: key,
                                               primaryKey: type.primaryKeyIndex.map { after[$0] }, changes: changes))
                }
            case (nil, nil):
                break
            }
        }
    }
}

extension ObjectDiff {
    /// The same changes, new → old.
    var undone: ObjectDiff {
        ObjectDiff(typeName: typeName, table: table, key: key, primaryKey: primaryKey,
                   changes: changes.map { PropertyValueChange(name: $0.name, oldValue: $0.newValue, newValue: $0.oldValue) })
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
        let value = record[property]
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
                              primaryKey: type.primaryKeyIndex.map { record[$0] },
                              values: zip(type.properties, record.values).map { PropertyValue(name: $0.name, value: $1) })
    }
}
