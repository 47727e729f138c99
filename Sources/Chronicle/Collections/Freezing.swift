extension _ObjectProjecting {
    /// A frozen copy pinned to the store's current version: it never
    /// changes, and it can be read from any task.
    ///
    /// - Precondition: the object is managed.
    public func freeze() -> Self {
        let root = _rootObject
        guard let location = root.location else {
            preconditionFailure("Chronicle: only managed objects can be frozen; this \(type(of: root)) was never added to a store")
        }
        if location.frozen != nil { return self }
        let state = location.table.store.committedState()
        return Self._project(location.table.store.handle(location.table.metadata.type, table: location.table, key: location.key, .frozen(in: state)))
    }

    /// The live object a frozen copy was taken from, or `nil` if it has
    /// been deleted since. A live object thaws to itself.
    public func thaw() -> Self? {
        let root = _rootObject
        guard let location = root.location else { return self }
        guard location.frozen != nil else { return self }
        let store = location.table.store
        guard store.committedState().contains(table: location.table.index, key: location.key) else { return nil }
        return Self._project(store.handle(location.table.metadata.type, table: location.table, key: location.key, .live))
    }
}

extension CollectionOwner {
    func freezing() -> CollectionOwner {
        CollectionOwner(table: table, key: key, property: property, frozen: frozenState ?? FrozenState(table.store.committedState()))
    }

    func thawing() -> CollectionOwner? {
        guard table.store.committedState().contains(table: table.index, key: key) else { return nil }
        return CollectionOwner(table: table, key: key, property: property, frozen: nil)
    }
}

extension List {
    /// A frozen copy pinned to the store's current version.
    ///
    /// - Precondition: the list is managed.
    public func freeze() -> List {
        guard let owner else { preconditionFailure("Chronicle: only managed lists can be frozen") }
        return List(owner: owner.freezing())
    }

    /// The live list, or `nil` if its object has been deleted.
    public func thaw() -> List? {
        guard let owner else { return self }
        return owner.thawing().map { List(owner: $0) }
    }
}

extension MutableSet {
    /// A frozen copy pinned to the store's current version.
    ///
    /// - Precondition: the set is managed.
    public func freeze() -> MutableSet {
        guard let owner else { preconditionFailure("Chronicle: only managed sets can be frozen") }
        return MutableSet(owner: owner.freezing())
    }

    /// The live set, or `nil` if its object has been deleted.
    public func thaw() -> MutableSet? {
        guard let owner else { return self }
        return owner.thawing().map { MutableSet(owner: $0) }
    }
}
