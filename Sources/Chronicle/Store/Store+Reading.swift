// Reads: results, look-ups by primary key, and the handles they make.

extension Store {
    /// All objects of a type, as a lazy, live ``Results``.
    public func objects<Element: _ObjectProjecting>(_ type: Element.Type) -> Results<Element> {
        Results(store: self, frozen: nil)
    }

    /// The object of `type` whose primary key is `key`, or `nil`.
    ///
    /// - Complexity: O(1) expected (a hash index on the primary key).
    public func object<Element: Object, KeyType: _PersistableProperty>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        let (state, sequence) = readableSnapshot()
        return object(ofType: type, forPrimaryKey: key, in: state, frozen: nil, sequence: sequence)
    }

    func object<Element: Object, KeyType: _PersistableProperty>(ofType type: Element.Type, forPrimaryKey key: KeyType,
                                                                in state: StoreState, frozen: StoreState?,
                                                                sequence: UInt64 = 0) -> Element? {
        let table = tableBinding(for: type, in: state)
        let metadata = table?.metadata ?? ClassMetadata.known(type)
        guard let pkOrdinal = metadata.primaryKeyOrdinal else {
            preconditionFailure("Chronicle: \(metadata.name) has no primary key; declare one with @Persisted(primaryKey: true)")
        }
        let expected = metadata.properties[pkOrdinal].kind.type
        let keyType = KeyType._propertyKind.type
        let compatible = expected == keyType || (Self.integerTypes.contains(expected) && Self.integerTypes.contains(keyType))
        precondition(compatible, "Chronicle: the primary key of \(metadata.name) is \(expected), not \(KeyType.self)")
        guard let table else { return nil }
        guard let primitive = key._primaryKeyValue,
              let objectKey = state.key(table: table.index, primaryKey: primitive) else { return nil }
        return handle(type, table: table, key: objectKey, frozenState: frozen.map(FrozenState.init), in: state, sequence: sequence)
    }

    private static let integerTypes: Set<PropertyType> = [.int, .int8, .int16, .int32, .int64]

    /// A managed handle on the object `key` of `type`'s table, frozen in
    /// `frozenState` if it is not `nil`.
    func handle<T: ObjectBase>(_ type: T.Type, key: ObjectKey, frozenState: FrozenState?) -> T {
        let state = frozenState?.state ?? readableState()
        guard let table = tableBinding(for: type, in: state) else {
            preconditionFailure("Chronicle: the journal has no table for \(type)")
        }
        return handle(type, table: table, key: key, frozenState: frozenState)
    }

    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey, frozen: StoreState?) -> T {
        handle(type, table: table, key: key, frozenState: frozen.map(FrozenState.init))
    }

    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey, frozenState: FrozenState?) -> T {
        if let frozenState {
            return ConstructionFrame.makeHandle(type, binding: ObjectBinding(.frozen(table, key, frozenState)))
        }
        return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key, snapshot: nil, sequence: 0)
    }

    /// A handle on object `key`, found in `state`. When `state` is the
    /// published state numbered `sequence` (not `0`), the handle remembers
    /// the object's record and reads it without the lock until the next
    /// commit (see ``ObjectBase/liveSnapshot``). O(log n): one look-up now
    /// saves one per property read.
    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey, frozenState: FrozenState?,
                               in state: StoreState, sequence: UInt64) -> T {
        if let frozenState {
            return ConstructionFrame.makeHandle(type, binding: ObjectBinding(.frozen(table, key, frozenState)))
        }
        let snapshot = sequence != 0 ? state.object(table: table.index, key: key) : nil
        let snapshotSequence = snapshot == nil ? 0 : sequence
        return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key,
                                                snapshot: consume snapshot, sequence: snapshotSequence)
    }

    /// A live handle on object `key`, whose record in the published state
    /// numbered `sequence` is `snapshot`, or which `block` holds encoded in
    /// that state; with neither, the handle reads the store when it is
    /// read (`sequence` is then ignored).
    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey,
                               snapshot: consuming ObjectRecord?, encoded block: EncodedBlock?, sequence: UInt64) -> T {
        // `consuming`, so that the caller's copy becomes the handle's
        // without another retain and release.
        let remembers = snapshot != nil || block != nil
        return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key, snapshot: consume snapshot,
                                                encoded: block, sequence: remembers ? sequence : 0)
    }
}
