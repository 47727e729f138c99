extension Journal {
    /// The state after commits `1...version`, folded from the start — without
    /// a store, without the app's classes.
    ///
    /// - Throws: ``StoreError/versionOutOfRange(requested:available:)``,
    ///   ``StoreError/journal(_:)``, or ``StoreError/rejected(_:)`` for a commit
    ///   that does not fold.
    /// - Complexity: O(events in commits `1...version`).
    public func state(at version: UInt64) throws(StoreError) -> StoreState {
        try TimeTravel(journal: self, checkpoints: nil).state(at: version)
    }

    /// Every commit that created, changed or deleted object `key` of `table`.
    /// - Complexity: a fold from the start to the object's deletion (or the end).
    public func history(table: Int, key: ObjectKey) throws(StoreError) -> [ObjectHistoryEntry] {
        try TimeTravel(journal: self, checkpoints: nil).history(table: table, key: key, through: lastVersion)
    }

    /// Every commit that changed the value at `path` (property names,
    /// following links) of object `key` of `table`, creation and deletion included.
    /// - Complexity: a fold from the start to the object's deletion (or the end).
    public func history(table: Int, key: ObjectKey, path: [String]) throws(StoreError) -> [PropertyHistoryEntry] {
        try TimeTravel(journal: self, checkpoints: nil).history(table: table, key: key, path: path, through: lastVersion)
    }

    /// What differs between versions `from` and `to` (see ``StoreDiff``).
    /// - Complexity: a fold from the start to the later version.
    public func diff(from: UInt64, to: UInt64) throws(StoreError) -> StoreDiff {
        let last = lastVersion
        for version in [from, to] where version > last {
            throw .versionOutOfRange(requested: version, available: 0...last)
        }
        return try TimeTravel(journal: self, checkpoints: nil).diff(from: from, to: to)
    }
}
