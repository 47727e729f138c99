// What a write's body calls on the store: add, create and delete objects.

extension Store {
    private func transactionForWriting(_ operation: String) -> Transaction {
        guard let transaction = currentTransaction() else {
            preconditionFailure("Chronicle: \(operation) must be called inside store.write { } or store.asyncWrite { }")
        }
        return transaction
    }

    /// Adds an unmanaged object, and the unmanaged objects it links to, to
    /// the store. The instance becomes managed. Call inside a write.
    ///
    /// With a primary key that already exists, the write fails (it throws
    /// ``StoreError/rejected(_:)``); use ``add(_:update:)-(ObjectBase,_)`` to upsert.
    public func add(_ object: ObjectBase) {
        transactionForWriting("store.add").add(object, update: .error)
    }

    /// Adds an object, or updates the existing object with the same primary
    /// key: `.modified` writes only the properties whose values differ,
    /// `.all` writes every property.
    public func add(_ object: ObjectBase, update: UpdatePolicy) {
        transactionForWriting("store.add").add(object, update: update)
    }

    /// Adds each object of a sequence.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: ObjectBase {
        let transaction = transactionForWriting("store.add")
        for object in objects { transaction.add(object, update: update) }
    }

    /// Creates an object of `type` from property values given by name, adds
    /// it and returns the managed object.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: [String: any _PersistableProperty] = [:], update: UpdatePolicy = .error) -> T {
        let transaction = transactionForWriting("store.create")
        let object = T()
        let metadata = ClassMetadata.known(type)
        for (name, value) in value {
            guard let ordinal = metadata.ordinalByName[name] else {
                preconditionFailure("Chronicle: \(metadata.name) has no persisted property '\(name)'")
            }
            object.unmanagedStorage.set(value, at: ordinal)
        }
        transaction.add(object, update: update)
        return object
    }

    /// Deletes a managed object. Its embedded objects go with it; links to
    /// it become `nil`, and lists and sets that held it drop it.
    public func delete(_ object: ObjectBase) {
        transactionForWriting("store.delete").delete(object)
    }

    /// Deletes every object of a sequence (a ``Results``, say).
    public func delete<S: Sequence>(_ objects: S) where S.Element: ObjectBase {
        let transaction = transactionForWriting("store.delete")
        for object in Array(objects) { transaction.delete(object) }
    }

    /// Deletes every object of every type. The schema stays.
    public func deleteAll() {
        let transaction = transactionForWriting("store.deleteAll")
        let state = transaction.state
        for (table, schema) in state.schema.enumerated() where !schema.isEmbedded {
            for (key, _) in Array(state.objects(table: table)) {
                transaction.apply(.delete(table: table, key: key))
            }
        }
    }
}
