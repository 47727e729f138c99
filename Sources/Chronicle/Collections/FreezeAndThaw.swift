// freeze() and thaw(): for objects and projections, and for List,
// MutableSet and Map.

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
        CollectionOwner(table: table, key: key, property: property, frozen: frozenState ?? PinnedState(table.store.committedState()))
    }

    func thawing() -> CollectionOwner? {
        guard table.store.committedState().contains(table: table.index, key: key) else { return nil }
        return CollectionOwner(table: table, key: key, property: property, frozen: nil)
    }
}

extension StoredCollection {
    /// A managed collection pinned to the store's current version.
    func frozenCopy() -> Self {
        guard let owner else {
            preconditionFailure("Chronicle: only a managed \(Self.self) can be frozen; add the object that holds it to a store first")
        }
        return Self(owner: owner.freezing())
    }

    /// The live collection, `nil` if its object has been deleted; an
    /// unmanaged collection is itself.
    func thawedCopy() -> Self? {
        guard let owner else { return self }
        return owner.thawing().map(Self.init(owner:))
    }
}

extension List {
    /// A frozen copy pinned to the store's current version.
    ///
    /// - Precondition: the list is managed.
    public func freeze() -> List { frozenCopy() }

    /// The live list, or `nil` if its object has been deleted.
    public func thaw() -> List? { thawedCopy() }
}

extension MutableSet {
    /// A frozen copy pinned to the store's current version.
    ///
    /// - Precondition: the set is managed.
    public func freeze() -> MutableSet { frozenCopy() }

    /// The live set, or `nil` if its object has been deleted.
    public func thaw() -> MutableSet? { thawedCopy() }
}

extension Map {
    /// A frozen copy pinned to the store's current version.
    ///
    /// - Precondition: the map is managed.
    public func freeze() -> Map { frozenCopy() }

    /// The live map, or `nil` if its object has been deleted. An unmanaged
    /// map thaws to itself.
    public func thaw() -> Map? { thawedCopy() }
}
