// Reads: results, look-ups by primary key, and the handles they make
// (``HandleReading`` says how a handle reads its object).

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
        return handle(type, table: table, key: objectKey,
                      .found(in: state, table: table.index, key: objectKey, sequence: sequence, frozen: frozen))
    }

    private static let integerTypes: Set<PropertyType> = [.int, .int8, .int16, .int32, .int64]

    /// A managed handle on the object `key` of `type`'s table, read as
    /// `reading` says; the table is `type`'s in the state the handle reads.
    func handle<T: ObjectBase>(_ type: T.Type, key: ObjectKey, _ reading: HandleReading) -> T {
        let state: StoreState
        if case .frozen(let frozen) = reading { state = frozen.state } else { state = readableState() }
        guard let table = tableBinding(for: type, in: state) else {
            preconditionFailure("Chronicle: the journal has no table for \(type)")
        }
        return handle(type, table: table, key: key, reading)
    }

    /// A managed handle on object `key` of `table`, read as `reading` says:
    /// the one place a handle is made.
    ///
    /// `consuming`, so that a remembered record the caller hands over
    /// becomes the handle's without another retain and release.
    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey, _ reading: consuming HandleReading) -> T {
        switch consume reading {
        case .live:
            return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key, snapshot: nil, sequence: 0)
        case .frozen(let frozen):
            return ConstructionFrame.makeHandle(type, binding: ObjectBinding(.frozen(table, key, frozen)))
        case .remembering(let snapshot, let block, let sequence):
            let remembers = snapshot != nil || block != nil
            return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key, snapshot: snapshot,
                                                    encoded: block, sequence: remembers ? sequence : 0)
        }
    }
}
