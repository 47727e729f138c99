extension StoreState {
    /// Folds one event into this state, recording what it changed in `changes`.
    ///
    /// Write transactions use this so that reads inside the transaction see
    /// its own changes. The event is checked completely before anything is
    /// written: on error the state and `changes` are unchanged.
    ///
    /// - Complexity: O(log n) per object touched (including cascades and
    ///   links removed from other objects), plus the size of any collection
    ///   value the event edits (collection values are copied on their first
    ///   edit in a state version). ``Event/addProperty(table:_:)`` rewrites
    ///   every object of its table: O(n log n).
    public mutating func apply(_ event: Event, changes: inout ChangeSetBuilder) throws(FoldError) {
        do {
            try fold(event, changes: &changes)
        } catch {
            throw FoldError(event: event, reason: error)
        }
    }

    /// Applies the creation of object `key` of `table` holding `record`'s
    /// values: ``apply(_:changes:)`` of the `.create` event, with the
    /// record already made.
    mutating func applyCreate(table: Int, key: ObjectKey, record: ObjectRecord,
                              changes: inout ChangeSetBuilder) throws(FoldError) {
        try applyCreate(table: table, key: key, values: record.elements, record: record, changes: &changes)
    }

    /// ``applyCreate(table:key:record:changes:)``, reading the values from
    /// `values` (which `record` holds too) for the checks and the indexes.
    // Inlined, so that it is compiled for each kind of values: left
    // generic, it looked the type metadata up on every call.
    @inline(__always)
    mutating func applyCreate<Values: CreatedValues>(table: Int, key: ObjectKey, values: Values, record: ObjectRecord,
                                                     changes: inout ChangeSetBuilder) throws(FoldError) {
        do throws(Reason) {
            try checkCreate(table, key, values)
        } catch {
            throw FoldError(event: .create(table: table, key: key, values: record.storage.array()), reason: error)
        }
        createObject(table, key, values, record: record, changes: &changes)
    }

    /// ``applyCreate(table:key:values:record:changes:)``, noting the new
    /// object's secondary-index entries in `pending`.
    @inline(__always)
    mutating func applyCreate<Values: CreatedValues>(table: Int, key: ObjectKey, values: Values, record: ObjectRecord,
                                                     changes: inout ChangeSetBuilder,
                                                     deferring pending: inout PendingIndexEntries) throws(FoldError) {
        do throws(Reason) {
            try checkCreate(table, key, values)
        } catch {
            throw FoldError(event: .create(table: table, key: key, values: record.storage.array()), reason: error)
        }
        createObject(table, key, values, record: record, changes: &changes, deferring: &pending)
    }

    /// The state after `commit`, and what the commit changed.
    ///
    /// The same as copying the state, applying each event in order and
    /// setting ``version`` to the commit's. This state is not modified.
    ///
    /// A snapshot commit (the first commit of a compacted journal, see
    /// ``snapshotCommit(timestamp:)``) applies to the empty state whatever
    /// its version, and restores the next keys it carries.
    ///
    /// - Throws: ``FoldError`` if `commit.version` is not `version + 1` (and
    ///   the commit is not a snapshot applied to the empty state) or an
    ///   event does not apply.
    /// - Complexity: O(size of the change), independent of the store's size.
    public func applying(_ commit: Commit) throws(FoldError) -> (state: StoreState, changes: ChangeSet) {
        var next = self
        var changes = ChangeSetBuilder()
        try next.fold(commit, changes: &changes)
        return (next, changes.build(version: commit.version))
    }

    /// Folds `commit` into this state in place and records no change set:
    /// what opening a store, time travel and replays do with commits nobody
    /// observes. Nodes this state alone holds are written in place, where
    /// ``applying(_:)`` first copies every node it touches (the old state
    /// may be in use).
    ///
    /// - Throws: ``FoldError`` as ``applying(_:)`` does; this state is then
    ///   partly folded and must be discarded.
    /// `creates`, if not empty, holds the `.create` events taken out of the
    /// commit's events, each with its object's record and its place among
    /// the events (made ahead on another thread, see
    /// ``CommitSource/takePrepared()`` and ``DecodedCreates``): they are
    /// folded in their places, their records checked and filed. A
    /// ``FoldError``'s event index then counts them too: it is the failed
    /// event's index in the commit as written.
    ///
    /// - Complexity: O(size of the change).
    mutating func foldInPlace(_ commit: Commit, creates: ContiguousArray<DecodedCreate> = []) throws(FoldError) {
        var pending = PendingIndexEntries()
        try foldInPlace(commit, creates: creates, filing: &pending)
    }

    /// ``foldInPlace(_:creates:)``, gathering a run of creates' index
    /// entries in `pending` (empty before and after; a fold passes the
    /// same one for every commit, so its storage is reused).
    mutating func foldInPlace(_ commit: Commit, creates: ContiguousArray<DecodedCreate>,
                              filing pending: inout PendingIndexEntries) throws(FoldError) {
        var changes = ChangeSetBuilder(recording: false)
        try fold(commit, changes: &changes, creates: creates, filing: &pending)
    }

    private mutating func fold(_ commit: Commit, changes: inout ChangeSetBuilder) throws(FoldError) {
        var none = PendingIndexEntries()
        try fold(commit, changes: &changes, creates: [], filing: &none)
    }

    private mutating func fold(_ commit: Commit, changes: inout ChangeSetBuilder,
                               creates: ContiguousArray<DecodedCreate>, filing pending: inout PendingIndexEntries) throws(FoldError) {
        let isSnapshot = version == 0 && tables.isEmpty && Self.isSnapshot(commit)
        guard commit.version == version &+ 1 || isSnapshot else {
            throw FoldError(event: nil, reason: .versionMismatch(expected: version &+ 1, actual: commit.version))
        }
        // `index` walks the events, `created` the creates taken out of them
        // (a journal's fold), each folded before the event it came before.
        // A run of creates files its objects' secondary-index entries
        // together, before the next other event and at the commit's end
        // (see `PendingIndexEntries`).
        var index = 0, created = 0
        while index < commit.events.count || created < creates.count {
            do throws(FoldError) {
                if created < creates.count, creates[created].before == index {
                    let run = foldCreateRun(creates, from: created, changes: &changes, deferring: &pending)
                    if run > 0 {
                        created += run
                        continue
                    }
                    // The same checks and filing as `fold(_:changes:)`, with
                    // the record made ahead, which holds the values.
                    let create = creates[created]
                    try applyCreate(table: create.table, key: create.key, values: create.record.elements, record: create.record,
                                    changes: &changes, deferring: &pending)
                    created += 1
                } else {
                    fileIndexEntries(&pending)
                    try apply(commit.events[index], changes: &changes)
                    index += 1
                }
            } catch {
                // Nothing gathered outlives a failed commit (the state is
                // discarded; the list must be empty for the next fold).
                pending = PendingIndexEntries()
                var error = error
                error.eventIndex = index + created
                throw error
            }
        }
        fileIndexEntries(&pending)
        if isSnapshot { restoreNextKeys(from: commit) }
        version = commit.version
    }

    private mutating func fold(_ event: Event, changes: inout ChangeSetBuilder) throws(Reason) {
        switch event {
        case .defineType(let type):
            guard tableIndexByName[type.name] == nil else { throw .duplicateType(type.name) }
            try checkProperties(type.properties, ofType: type.name, embedded: type.isEmbedded)
            define(type)
            changes.schemaChanged = true
        case .addProperty(let table, let property):
            guard tables.indices.contains(table) else { throw .noSuchTable(table) }
            let type = schema[table]
            try checkProperties(type.properties + [property], ofType: type.name, embedded: type.isEmbedded)
            if let declared = property.declaredDefault {
                guard property.collection == .none, property.type != .object else {
                    throw .invalidSchema("property \"\(property.name)\" cannot have a declared default: it is a link or collection")
                }
                try check(declared, fits: property)
            }
            if property.isPrimaryKey, tables[table].objects.count > 1, let first = tables[table].objects.firstKey {
                throw .duplicatePrimaryKey(property.defaultValue, existing: ObjectKey(first))
            }
            addProperty(property, to: table)
            changes.schemaChanged = true
        case .changeSchema(let change):
            try fold(change, changes: &changes)
        case let .create(table, key, values):
            try checkCreate(table, key, values)
            createObject(table, key, values, changes: &changes)
        case let .set(table, key, property, value):
            try set(table, key, property, value, changes: &changes)
        case let .delete(table, key):
            _ = try existing(table, key)
            deleteObject(table, key, changes: &changes)
        case .listInsert, .listRemove, .listMove, .listReplace:
            try foldListEvent(event, changes: &changes)
        case .setInsert, .setRemove, .mapSet, .mapRemove, .clear:
            try foldSetOrMapEvent(event, changes: &changes)
        }
    }

    private mutating func set(_ table: Int, _ key: ObjectKey, _ property: Int, _ value: PersistedValue,
                              changes: inout ChangeSetBuilder) throws(Reason) {
        let record = try existing(table, key)
        let schema = try propertySchema(table, property)
        let old = record[property]
        guard old != value else { return }
        if schema.isPrimaryKey { throw .primaryKeyChange(property: schema.name) }
        try check(value, fits: schema)
        let (leaving, entering) = old.linkedKeys.multisetDifference(value.linkedKeys)
        try checkOwnership(entering, through: schema)
        write(table, key, property, value, leaving: leaving, entering: entering, changes: &changes)
    }
}

extension Array where Element: Hashable {
    /// The elements of `self` not matched in `other` and the elements of
    /// `other` not matched in `self`, counting repeats. O(n + m).
    func multisetDifference(_ other: [Element]) -> (removed: [Element], added: [Element]) {
        if isEmpty || other.isEmpty { return (self, other) }
        var counts: [Element: Int] = [:]
        for element in other { counts[element, default: 0] += 1 }
        var removed: [Element] = []
        for element in self {
            if let count = counts[element], count > 0 { counts[element] = count - 1 } else { removed.append(element) }
        }
        var added: [Element] = []
        for element in other.reversed() {
            if let count = counts[element], count > 0 {
                counts[element] = count - 1
                added.append(element)
            }
        }
        return (removed, added.reversed())
    }
}
