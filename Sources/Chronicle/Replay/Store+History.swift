extension Store {
    /// Every commit that changed one property of `object`: version, time,
    /// label, old value and new value — its creation and deletion included.
    ///
    /// ```swift
    /// for entry in try store.history(of: person, keyPath: \.firstName) {
    ///     print(entry.version, entry.label ?? "", entry.oldValue ?? "∅", "→", entry.newValue ?? "∅")
    /// }
    /// ```
    ///
    /// A key path through links (`\.address.city`) follows them at every
    /// version, so a change of the linked object counts too. This untyped
    /// form (any key path, links and collections included) gives
    /// ``PersistedValue``s, readable without the app's classes; a key path
    /// to a value (`\.balance`, `\.address?.city`) gives typed values
    /// through ``history(of:keyPath:)-(_,KeyPath<Root,Value>)``.
    ///
    /// - Precondition: `object` is managed by this store, and `keyPath` reads a persisted property.
    /// - Throws: ``StoreError/journal(_:)`` if the journal cannot be read.
    /// - Complexity: a fold of the commits from the checkpoint before the
    ///   object was created up to its deletion (or the current version).
    public func history<Root: ObjectBase>(of object: Root, keyPath: PartialKeyPath<Root>) throws(StoreError) -> [PropertyHistoryEntry] {
        let (table, key) = locate(object)
        let recorded: RecordedKeyPath
        do { recorded = try KeyPathMapping.record(keyPath) } catch {
            preconditionFailure("Chronicle: cannot list the history of a key path of \(Root.self): \(error)")
        }
        // A journal never migrated has no renames to follow: not read twice.
        let state = committedState()
        return try timeTravel.history(table: table, key: key, path: recorded.path, through: state.version,
                                  followingRenames: state.schemaVersion > 0)
    }

    /// Every commit that changed one value of `object`, typed as the key
    /// path says: `store.history(of: account, keyPath: \.balance)` gives
    /// `Int`s.
    ///
    /// ```swift
    /// for entry in try store.history(of: account, keyPath: \.balance) {
    ///     print(entry.version, entry.oldValue ?? 0, "→", entry.newValue ?? 0)
    /// }
    /// ```
    ///
    /// - Precondition: as ``history(of:keyPath:)-(_,PartialKeyPath<Root>)``.
    /// - Throws: ``StoreError/journal(_:)`` if the journal cannot be read;
    ///   ``StoreError/schema(_:)`` with ``SchemaError/unreadableVersion(type:version:differences:)``
    ///   when a migration changed the property's type, and its earlier values
    ///   are not `Value`s (the untyped history has them).
    /// - Complexity: as ``history(of:keyPath:)-(_,PartialKeyPath<Root>)``.
    public func history<Root: ObjectBase, Value: _PrimitivePersistable>(
        of object: Root, keyPath: KeyPath<Root, Value>
    ) throws(StoreError) -> [TypedHistoryEntry<Value>] {
        try history(of: object, keyPath: keyPath as PartialKeyPath<Root>).map { (entry) throws(StoreError) in
            try TypedHistoryEntry(entry) { (value) throws(StoreError) in
                try Self.typed(value, as: Value.self, entry: entry, of: Root.self)
            }
        }
    }

    /// The same for an optional value (`\.nickname`, `\.address?.city`):
    /// `.some(nil)` is a stored `nil`, or a path through a `nil` link.
    public func history<Root: ObjectBase, Value: _PrimitivePersistable>(
        of object: Root, keyPath: KeyPath<Root, Value?>
    ) throws(StoreError) -> [TypedHistoryEntry<Value?>] {
        try history(of: object, keyPath: keyPath as PartialKeyPath<Root>).map { (entry) throws(StoreError) in
            try TypedHistoryEntry(entry) { (value) throws(StoreError) -> Value? in
                if case .null = value { return nil }
                return try Self.typed(value, as: Value.self, entry: entry, of: Root.self)
            }
        }
    }

    /// `value` as a `Value`. The schema guarantees it is one since the
    /// last migration that changed the property's type; before it, the
    /// property held other values.
    private static func typed<Value: _PrimitivePersistable>(_ value: PersistedValue, as _: Value.Type, entry: PropertyHistoryEntry,
                                                            of root: ObjectBase.Type) throws(StoreError) -> Value {
        guard let typed = Value(_primitive: value) else {
            throw .schema(.unreadableVersion(type: "\(root)", version: entry.version, differences: [
                "the history of '\(entry.property)' holds \(value) around version \(entry.version), which is not a \(Value.self): "
                    + "a migration changed the property's type since. Its untyped history "
                    + "(history(of:keyPath:) with the key path as a PartialKeyPath<\(root)>) gives every value as it was",
            ]))
        }
        return typed
    }

    /// Every commit that created, changed or deleted `object`, with the
    /// properties it changed (old → new).
    ///
    /// - Precondition: `object` is managed by this store.
    /// - Throws: ``StoreError/journal(_:)`` if the journal cannot be read.
    /// - Complexity: as ``history(of:keyPath:)-(_,PartialKeyPath<Root>)``.
    public func history(of object: ObjectBase) throws(StoreError) -> [ObjectHistoryEntry] {
        let (table, key) = locate(object)
        let state = committedState()
        return try timeTravel.history(table: table, key: key, through: state.version, followingMigrations: state.schemaVersion > 0)
    }

    /// The objects inserted, deleted and changed (old → new) between two
    /// versions. `from` may be later than `to`: the diff then undoes.
    ///
    /// - Throws: ``StoreError/versionOutOfRange(requested:available:)`` for a
    ///   version the store does not have.
    /// - Complexity: a fold from the checkpoint nearest the earlier version
    ///   to the later one, plus O(objects touched in between).
    public func diff(from: UInt64, to: UInt64) throws(StoreError) -> StoreDiff {
        let current = committedState().version
        for version in [from, to] where version > current {
            throw .versionOutOfRange(requested: version, available: 0...current)
        }
        return try timeTravel.diff(from: from, to: to)
    }

    private func locate(_ object: ObjectBase) -> (table: Int, key: ObjectKey) {
        guard let location = object.location, location.table.store === self else {
            preconditionFailure("Chronicle: history needs an object managed by this store; add it first")
        }
        return (location.table.index, location.key)
    }
}
