import Foundation

/// The changes of one write, applied event by event to a working copy of
/// the state so that reads inside the write see them.
///
/// The fold is the same one that replays the journal: a transaction's
/// working state is exactly what a reader will get after the commit.
final class Transaction: @unchecked Sendable {
    // Safety: a transaction is created, used and finished by the one thread
    // that holds the store's writer lock; `Store.currentTransaction()` hands
    // it out only to that thread.
    let store: Store
    private(set) var state: StoreState
    private(set) var events: [Event] = []
    private(set) var changes = ChangeSetBuilder()
    private(set) var failure: StoreError?
    private var ensuredTypes: Set<ObjectIdentifier> = []
    /// Keys handed out in this write but not yet created (cycles of new objects).
    private var reservedKeys: [Int: ObjectKey] = [:]
    /// Objects whose `create` event is being prepared: links to them wait.
    private var inProgress: Set<TableKey> = []
    /// Property sets that link to objects that were in progress, applied
    /// once the outermost `add` has created everything.
    private var deferredLinks: [Event] = []
    /// Unmanaged instances this write made managed (bound to a new key).
    private var newlyBound: [ObjectBase] = []

    init(store: Store, base: StoreState) {
        self.store = store
        self.state = base
    }

    /// Applies one event; the first event that does not apply fails the
    /// whole write, which then throws and commits nothing.
    func apply(_ event: Event) {
        guard failure == nil else { return }
        do {
            try state.apply(event, changes: &changes)
            events.append(event)
        } catch {
            failure = .rejected(error)
        }
    }

    func fail(_ error: StoreError) {
        if failure == nil { failure = error }
    }

    func set(table: Int, key: ObjectKey, property: Int, value: PersistedValue) {
        apply(.set(table: table, key: key, property: property, value: value))
    }

    // MARK: Schema

    /// Makes sure the journal knows `type` (and the types it links to), then
    /// binds it. Returns `nil` after recording a failure.
    func register(_ type: ObjectBase.Type) -> TableBinding? {
        // The same class again (a loop of `add`s): its binding still holds
        // while its table's schema is unchanged, and skips two locked
        // look-ups and a hash of the type's name per object.
        if failure == nil, let (id, binding) = lastRegistered, id == ObjectIdentifier(type),
           binding.schemaPropertyCount == state.schema[binding.index].properties.count {
            return binding
        }
        let binding = registerSlowly(type)
        lastRegistered = binding.map { (ObjectIdentifier(type), $0) }
        return binding
    }

    private func registerSlowly(_ type: ObjectBase.Type) -> TableBinding? {
        let metadata: ClassMetadata
        do { metadata = try ClassMetadata.of(type) } catch {
            fail(.schema(error))
            return nil
        }
        ensureSchema(metadata)
        guard failure == nil else { return nil }
        return store.tableBinding(for: metadata, in: state)
    }

    /// The class ``register(_:)`` bound last, and its binding.
    private var lastRegistered: (ObjectIdentifier, TableBinding)?

    private func ensureSchema(_ metadata: ClassMetadata) {
        guard ensuredTypes.insert(ObjectIdentifier(metadata.type)).inserted else { return }
        if let index = state.tableIndex(named: metadata.name) {
            let diff = SchemaDiff(recorded: state.schema[index], declared: metadata.schema)
            guard diff.mismatches.isEmpty else {
                fail(.schema(.mismatch(type: metadata.name, differences: diff.mismatches)))
                return
            }
            for property in diff.added { apply(.addProperty(table: index, property)) }
        } else {
            apply(.defineType(metadata.schema))
        }
        for linked in metadata.linkedTypes {
            do { ensureSchema(try ClassMetadata.of(linked)) } catch {
                fail(.schema(error))
            }
        }
    }

    // MARK: Objects

    /// A key for a new object of `table`: never used before, in the journal
    /// or in this write.
    ///
    /// Keys are also never reused within the process after a write rolled
    /// back (``Store/keyHighWater``): an instance that write bound keeps its
    /// key, and must not come to alias an object added later.
    func newKey(table: Int) -> ObjectKey {
        let local = max(state.nextKey(table: table), reservedKeys[table] ?? ObjectKey(0))
        let key = store.keyHighWater.withLock { highWater in
            let key = max(local.rawValue, highWater[table] ?? 0)
            highWater[table] = key + 1
            return ObjectKey(key)
        }
        reservedKeys[table] = ObjectKey(key.rawValue + 1)
        return key
    }

    /// The write failed and commits nothing: instances it made managed stay
    /// bound to keys that do not exist (reads trap with a message, and
    /// `isInvalidated` is true) until they are added again.
    func rollBack() {
        for object in newlyBound { object.addWasRolledBack.store(true, ordering: .releasing) }
    }

    /// Adds an unmanaged object (and the unmanaged objects it links to),
    /// making the instance managed; updates an existing object with the same
    /// primary key when `update` allows. Returns the object's key.
    @discardableResult
    func add(_ object: ObjectBase, update: Store.UpdatePolicy) -> ObjectKey? {
        var rolledBackKey: ObjectKey?
        if let location = object.location {
            precondition(location.table.store === store,
                         "Chronicle: this \(location.table.metadata.name) belongs to another store; add an unmanaged copy instead")
            precondition(location.frozen == nil,
                         "Chronicle: a frozen \(location.table.metadata.name) cannot be added; thaw() it first")
            guard object.addWasRolledBack.load(ordering: .acquiring),
                  state.object(table: location.table.index, key: location.key) == nil,
                  !inProgress.contains(TableKey(table: location.table.index, key: location.key)) else {
                return location.key
            }
            // Added by a write that rolled back: add it again, at the key it is bound to.
            rolledBackKey = location.key
        }
        guard let table = register(type(of: object)) else { return nil }
        if rolledBackKey != nil {
            precondition(object.location?.table.index == table.index,
                         "Chronicle: this \(table.metadata.name) was added by a write that rolled back, and its table changed since; add a new instance instead")
            object.addWasRolledBack.store(false, ordering: .releasing)
            newlyBound.append(object)
        }
        let metadata = table.metadata
        let values = object.unmanagedValues.withLock { $0 }

        if update != .error, let pkOrdinal = metadata.primaryKeyOrdinal {
            let context = _WriteContext(transaction: self, table: table, key: ObjectKey(0), property: table.property(forOrdinal: pkOrdinal))
            let primaryKey = values[pkOrdinal]._write(in: context)
            if let existing = state.key(table: table.index, primaryKey: primaryKey) {
                _ = object.binding.storeIfNil(ObjectBinding(.managed(table, existing, frozen: nil)))
                updateExisting(existing, in: table, from: values, writingAll: update == .all)
                return existing
            }
        }

        let key = rolledBackKey ?? newKey(table: table.index)
        let me = TableKey(table: table.index, key: key)
        let isOutermost = inProgress.isEmpty
        inProgress.insert(me)
        if rolledBackKey == nil {
            _ = object.binding.storeIfNil(ObjectBinding(.managed(table, key, frozen: nil)))
            newlyBound.append(object)
        }
        let schema = state.schema[table.index]
        var persisted = schema.properties.map(\.defaultValue)
        for (ordinal, value) in values.enumerated() {
            let property = table.property(forOrdinal: ordinal)
            guard property >= 0 else { continue }
            let context = _WriteContext(transaction: self, table: table, key: key, property: property)
            let converted = value._write(in: context)
            if linksToInProgress(converted, property: schema.properties[property]) {
                // A cycle among new objects: create with the default now,
                // link once every object of the cycle exists.
                deferredLinks.append(.set(table: table.index, key: key, property: property, value: converted))
            } else {
                persisted[property] = converted
            }
        }
        apply(.create(table: table.index, key: key, values: persisted))
        inProgress.remove(me)
        if isOutermost {
            let links = deferredLinks
            deferredLinks = []
            links.forEach(apply)
        }
        return key
    }

    private func linksToInProgress(_ value: PersistedValue, property: PropertySchema) -> Bool {
        guard !inProgress.isEmpty, let target = property.objectType, let table = state.tableIndex(named: target) else { return false }
        return ChangePaths.targets(of: value).contains { inProgress.contains(TableKey(table: table, key: $0)) }
    }

    private func updateExisting(_ key: ObjectKey, in table: TableBinding, from values: ContiguousArray<any _PersistableProperty>, writingAll: Bool) {
        guard let record = state.object(table: table.index, key: key) else { return }
        for (ordinal, value) in values.enumerated() {
            let property = table.property(forOrdinal: ordinal)
            guard property >= 0, ordinal != table.metadata.primaryKeyOrdinal else { continue }
            let context = _WriteContext(transaction: self, table: table, key: key, property: property)
            let newValue = value._write(in: context)
            if writingAll || record.values[property] != newValue {
                set(table: table.index, key: key, property: property, value: newValue)
            }
        }
    }

    /// The key to store for a link from a property to `object`, adding the
    /// object if it is unmanaged.
    func linkKey(for object: ObjectBase) -> ObjectKey? {
        if let location = object.location, location.table.metadata.isEmbedded, location.frozen == nil,
           !object.addWasRolledBack.load(ordering: .acquiring) {
            preconditionFailure("Chronicle: this \(location.table.metadata.name) is an embedded object that already has a parent; assign a new, unmanaged \(location.table.metadata.name) instead")
        }
        return add(object, update: .error)
    }

    func delete(_ object: ObjectBase) {
        guard let location = object.location else {
            preconditionFailure("Chronicle: only managed objects can be deleted; this \(type(of: object)) was never added to a store")
        }
        precondition(location.table.store === store, "Chronicle: this \(location.table.metadata.name) belongs to another store")
        precondition(location.frozen == nil, "Chronicle: a frozen \(location.table.metadata.name) cannot be deleted; thaw() it first")
        apply(.delete(table: location.table.index, key: location.key))
    }
}
