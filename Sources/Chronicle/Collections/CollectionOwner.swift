/// Where a managed collection property lives: its owner object and property.
struct CollectionOwner: Sendable {
    let table: TableBinding
    let key: ObjectKey
    let property: Int
    /// The state a frozen collection is pinned to, by reference (shared
    /// with the read context the collection came from).
    let frozenState: PinnedState?
    /// Kept strongly: the table binding references the store unowned.
    let store: Store

    /// The state a frozen collection is pinned to; `nil` for a live one.
    var frozen: StoreState? { frozenState?.state }

    init(table: TableBinding, key: ObjectKey, property: Int, frozen: PinnedState?) {
        self.table = table
        self.key = key
        self.property = property
        frozenState = frozen
        store = table.store
    }

    func state() -> StoreState { frozen ?? store.readableState() }

    /// The stored collection value, or `nil` if the owner was deleted.
    func value(in state: StoreState) -> PersistedValue? {
        state.object(table: table.index, key: key)?[property]
    }

    /// The collection's elements as Swift values, read from one state.
    func elements<Element: _PersistableValue>(_: Element.Type) -> [Element] {
        let state = state()
        let context = readContext(state)
        return storedElements(value(in: state)).compactMap { Element._fromPersisted($0, in: context) }
    }

    /// The number of elements, without converting them.
    var count: Int { storedElements(value(in: state())).count }

    func readContext(_ state: StoreState) -> _ReadContext {
        _ReadContext(table: table, key: key, property: property, ordinal: -1, frozen: frozenState)
    }

    /// The write in progress, or a precondition failure naming the operation.
    func transaction(_ operation: String) -> Transaction {
        let name = "\(table.metadata.name).\(table.metadata.schema.properties[property].name)"
        precondition(frozen == nil, "Chronicle: \(name) is frozen and cannot change; thaw() it and modify the live collection inside store.write { }")
        guard let transaction = store.currentTransaction() else {
            preconditionFailure("Chronicle: \(operation) on \(name) must happen inside store.write { } or store.asyncWrite { }")
        }
        return transaction
    }

    func writeContext(_ transaction: Transaction) -> _WriteContext {
        _WriteContext(transaction: transaction, table: table, key: key, property: property)
    }
}

/// Elements of a stored list or set value.
func storedElements(_ value: PersistedValue?) -> [PersistedValue] {
    switch value {
    case .list(let elements)?, .set(let elements)?: elements
    default: []
    }
}
