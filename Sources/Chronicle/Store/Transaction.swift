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
    //
    // No dynamic exclusivity checks on the mutable state below: only that
    // one thread touches it, and no method keeps an access open across a
    // call that can re-enter the transaction (`add` converts values into
    // locals before it recurses through links). The checks were a large
    // part of the cost of each object added.
    let store: Store
    /// The state the write has made so far, but for the secondary-index
    /// entries of the objects `add` created since they were last filed
    /// (``pendingIndexEntries``). Its objects, primary keys, backlinks and
    /// schema are always whole: what this class reads of it itself.
    @exclusivity(unchecked) private var working: StoreState
    /// The secondary-index entries of objects `add` created, gathered as a
    /// fold gathers a run of creates' (see ``PendingIndexEntries``): each
    /// value's keys are then filed with one walk of its index, not one per
    /// object. Filed before any other event applies, before ``state`` is
    /// read, and so before the commit.
    @exclusivity(unchecked) private var pendingIndexEntries = PendingIndexEntries()
    /// The events applied so far, encoded as the journal records them
    /// (`EventCodec`), after ``headRoom`` bytes left for the record's frame
    /// and the commit's header: the commit's record is written from here
    /// as it is (``record(version:timestamp:label:metadata:)``). A write
    /// keeps no `Event` per change, and a created object's values are
    /// encoded straight from its record. (An array of the events and
    /// another of the created records cost about 90 bytes an object, which
    /// a bulk insert grew by doubling into fresh pages: most of its page
    /// faults, at about 2 µs each in a virtual machine.)
    @exclusivity(unchecked) private var encodedEvents: BinaryWriter
    /// The number of events in ``encodedEvents``.
    @exclusivity(unchecked) private(set) var eventCount = 0
    /// The room left before ``encodedEvents`` for the heads
    /// (``JournalFormat/headRoom(label:metadata:)``).
    private let headRoom: Int
    @exclusivity(unchecked) private(set) var changes = ChangeSetBuilder()
    @exclusivity(unchecked) private(set) var failure: StoreError?
    @exclusivity(unchecked) private var ensuredTypes: Set<ObjectIdentifier> = []
    /// The class this write registered under each type name: two classes
    /// with one name would share (and fight over) one table.
    @exclusivity(unchecked) private var ensuredNames: [String: ObjectBase.Type] = [:]
    /// Per table index, the next key this write hands out (0: none handed
    /// out yet). The store's high-water mark is read on a table's first key
    /// and written back once, when the write ends (see ``finish()``): the
    /// writer lock keeps every other write out until then.
    @exclusivity(unchecked) private var nextKeys: [Int64] = []
    /// Objects whose `create` event is being prepared: links to them wait.
    /// Objects of types without link properties never enter: nothing can
    /// link to them while their values convert.
    @exclusivity(unchecked) private var inProgress: Set<TableKey> = []
    /// Property sets that link to objects that were in progress, applied
    /// once the outermost `add` has created everything.
    @exclusivity(unchecked) private var deferredLinks: [Event] = []
    /// The objects this write bound unmanaged instances to, for
    /// ``rollBack()`` to record in ``Store/rolledBackAdds`` (the keys, not
    /// the instances: see there).
    @exclusivity(unchecked) private var newlyBound = TableKeyRuns()
    /// What creating an object of the table ``add(_:update:)`` used last needs.
    @exclusivity(unchecked) private var lastTemplate: CreationTemplate?

    /// A write to `store` from `base`, whose commit will have `label` and
    /// `metadata` (the room left for its header depends on them).
    init(store: Store, base: StoreState, label: String?, metadata: [String: String]) {
        self.store = store
        self.working = base
        headRoom = JournalFormat.headRoom(label: label, metadata: metadata)
        encodedEvents = BinaryWriter(capacity: headRoom + 64)
        encodedEvents.skip(headRoom)
    }

    /// The record of this write's commit, numbered `version`: its events
    /// as they were applied. Call once, when the write commits.
    /// - Throws: ``JournalError/commitTooLarge(bytes:limit:)``.
    func record(version: UInt64, timestamp: Date, label: String?, metadata: [String: String]) throws(JournalError)
        -> JournalFormat.EncodedRecord {
        let events = encodedEvents
        encodedEvents = BinaryWriter(capacity: 0)  // the one reference to the buffer goes to the record
        return try JournalFormat.record(events: events, after: headRoom, eventCount: eventCount, version: version,
                                        timestamp: timestamp, label: label, metadata: metadata)
    }

    /// The state the write has made so far, every index whole: what reads
    /// inside the write see, and what the commit publishes.
    var state: StoreState {
        fileIndexEntries()
        return working
    }

    /// The record of object `key` in `table` in the write's state, without
    /// copying the state or filing its index entries (a record does not
    /// depend on them). O(log n).
    func record(table: Int, key: ObjectKey) -> ObjectRecord? {
        working.object(table: table, key: key)
    }

    /// Files the gathered index entries (see ``pendingIndexEntries``).
    /// O(1) when there are none.
    @inline(__always)
    private func fileIndexEntries() {
        if !pendingIndexEntries.isEmpty { working.fileIndexEntries(&pendingIndexEntries) }
    }

    /// Applies one event; the first event that does not apply fails the
    /// whole write, which then throws and commits nothing.
    func apply(_ event: Event) {
        guard failure == nil else { return }
        fileIndexEntries()
        do {
            try working.apply(event, changes: &changes)
            EventCodec.encode(event, into: &encodedEvents)
            eventCount += 1
        } catch {
            failure = .rejected(error.explained(in: state))
        }
    }

    /// Applies the creation of object `key` holding `values` in `record`,
    /// as ``apply(_:)`` applies a `.create` event.
    /// Creates object `key` of `table` holding `record` (made by the
    /// caller; the values checked and filed from it).
    private func applyCreate(table: Int, key: ObjectKey, record: ObjectRecord) {
        guard failure == nil else { return }
        do {
            try working.applyCreate(table: table, key: key, values: record.elements, record: record, changes: &changes,
                                    deferring: &pendingIndexEntries)
            EventCodec.encodeCreateStart(table: table, key: key, valueCount: record.storage.count, into: &encodedEvents)
            record.storage.encodeValues(into: &encodedEvents)
            eventCount += 1
        } catch {
            failure = .rejected(error.explained(in: state))
        }
    }

    private func applyCreate(table: Int, key: ObjectKey, values: UnsafeBufferPointer<PersistedValue>, record: ObjectRecord) {
        guard failure == nil else { return }
        do {
            try working.applyCreate(table: table, key: key, values: values, record: record, changes: &changes,
                                    deferring: &pendingIndexEntries)
            EventCodec.encodeCreateStart(table: table, key: key, valueCount: record.storage.count, into: &encodedEvents)
            record.storage.encodeValues(into: &encodedEvents)
            eventCount += 1
        } catch {
            failure = .rejected(error.explained(in: state))
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
           binding.schemaPropertyCount == working.schema[binding.index].properties.count {
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
        return store.tableBinding(for: metadata, in: working)
    }

    /// The class ``register(_:)`` bound last, and its binding.
    @exclusivity(unchecked) private var lastRegistered: (ObjectIdentifier, TableBinding)?

    private func ensureSchema(_ metadata: ClassMetadata) {
        guard ensuredTypes.insert(ObjectIdentifier(metadata.type)).inserted else { return }
        if let other = ensuredNames.updateValue(metadata.type, forKey: metadata.name) ?? store.boundClass(named: metadata.name),
           other != metadata.type {
            fail(.schema(.duplicateTypeName(metadata.name)))
            return
        }
        if let index = working.tableIndex(named: metadata.name) {
            let diff = SchemaDiff(recorded: working.schema[index], declared: metadata.schema)
            guard diff.mismatches.isEmpty else {
                fail(.schema(.mismatch(type: metadata.name, differences: diff.mismatches)))
                return
            }
            for property in diff.added { apply(.addProperty(table: index, metadata.propertyToAdd(property))) }
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
    /// Keys are also never reused after a write rolled back, within the
    /// process (``Store/keyHighWater``) or by another process sharing the
    /// store (``Store/sharedKeyHighWater(table:)``): an instance that write
    /// bound keeps its key, and must not come to alias an object added later.
    ///
    /// - Complexity: O(1) amortised; the store's lock is taken once per
    ///   table per write, not once per key.
    func newKey(table: Int) -> ObjectKey {
        if nextKeys.count <= table { nextKeys.append(contentsOf: repeatElement(0, count: table + 1 - nextKeys.count)) }
        var key = nextKeys[table]
        if key == 0 { key = max(store.keyHighWater.withLock { $0[table] ?? 0 }, store.sharedKeyHighWater(table: table)) }
        key = max(key, working.nextKey(table: table).rawValue)
        nextKeys[table] = key + 1
        return ObjectKey(key)
    }

    /// Ends the write, committed or not: publishes the keys it handed out
    /// to the store's high-water mark, so no later write reuses them.
    /// Call once, while still holding the writer lock.
    func finish() {
        guard nextKeys.contains(where: { $0 != 0 }) else { return }
        store.keyHighWater.withLock { highWater in
            for (table, next) in nextKeys.enumerated() where next != 0 {
                highWater[table] = max(highWater[table] ?? 0, next)
            }
        }
        store.raiseSharedKeyHighWater(nextKeys)
    }

    /// The write failed and commits nothing: instances it made managed stay
    /// bound to keys that do not exist (reads trap with a message, and
    /// `isInvalidated` is true) until they are added again.
    func rollBack() {
        guard !newlyBound.isEmpty else { return }
        store.rolledBackAdds.withLock { $0.formUnion(newlyBound.keys) }
    }

    /// Adds an unmanaged object (and the unmanaged objects it links to),
    /// making the instance managed; updates an existing object with the same
    /// primary key when `update` allows. Returns the object's key.
    @discardableResult
    func add(_ object: ObjectBase, update: Store.UpdatePolicy) -> ObjectKey? {
        var rolledBackKey: ObjectKey?
        if let location = object.location {
            precondition(location.table.store === store,
                         "Chronicle: this \(location.table.metadata.name) belongs to another store; add a copy instead: \(location.table.metadata.name)(value: object)")
            precondition(location.frozen == nil,
                         "Chronicle: a frozen \(location.table.metadata.name) cannot be added; thaw() it first")
            guard object.addWasRolledBack,
                  working.object(table: location.table.index, key: location.key) == nil,
                  !inProgress.contains(TableKey(table: location.table.index, key: location.key)) else {
                return location.key
            }
            // Added by a write that rolled back: add it again, at the key it is bound to.
            rolledBackKey = location.key
        }
        guard let table = register(type(of: object)) else { return nil }
        let storage = object.unmanagedStorage
        if let boundKey = rolledBackKey, let boundTable = object.location?.table.index {
            let bound = TableKey(table: boundTable, key: boundKey)
            store.rolledBackAdds.withLock { _ = $0.remove(bound) }
            if boundTable != table.index {
                // The write that rolled back also registered the type, and
                // another type took that table index since: the key is
                // meaningless in the type's new table, so the instance is
                // added afresh, at a new key.
                storage.unbind(from: bound)
                rolledBackKey = nil
            }
        }
        let metadata = table.metadata

        if update != .error, let pkOrdinal = metadata.primaryKeyOrdinal {
            let context = _WriteContext(transaction: self, table: table, key: ObjectKey(0), property: table.property(forOrdinal: pkOrdinal))
            let primaryKey = storage.value(at: pkOrdinal)._write(in: context)
            if let existing = working.key(table: table.index, primaryKey: primaryKey) {
                // A rolled-back add's instance becomes the existing object,
                // as an unmanaged one would.
                if let rolledBackKey { storage.unbind(from: TableKey(table: table.index, key: rolledBackKey)) }
                storage.bindIfUnmanaged(table: table, key: existing)
                updateExisting(existing, in: table, from: storage.allValues(), writingAll: update == .all)
                return existing
            }
        }

        let key = rolledBackKey ?? newKey(table: table.index)
        let me = TableKey(table: table.index, key: key)
        let isOutermost = inProgress.isEmpty
        let template = creationTemplate(table.index)
        if template.hasLinks { inProgress.insert(me) }
        let binds = rolledBackKey == nil
        newlyBound.append(me)
        if table.mapsOrdinalsInOrder, !template.hasLinks {
            // No links, so converting a value adds no object and cannot
            // re-enter this write (nor reach this object's lock again): the
            // instance is bound and its values filed under one lock.
            storage.withLockedHeader { added, values in
                if binds { UnmanagedValues.AddedLocation.bind(&added, table: table, key: key, version: working.version + 1) }
                if values.areAllInRecord {
                    // Every value primitive: the instance's own storage,
                    // its slots laid out as the schema's properties, is the
                    // record (the instance never writes it again).
                    applyCreate(table: table.index, key: key, record: ObjectRecord(storage: values.record))
                    return
                }
                // The others converted into a buffer on the stack, and from
                // there into the object's record.
                withUnsafeTemporaryAllocation(of: PersistedValue.self, capacity: values.count) { persisted in
                    for ordinal in 0..<values.count {
                        let converted: PersistedValue
                        if let stored = values.storedValue(ordinal) {
                            converted = stored
                        } else {
                            let context = _WriteContext(transaction: self, table: table, key: key, property: ordinal)
                            // `pointee`'s addressor: the entry itself, not a copy.
                            let entry = values.entries.baseAddress.unsafelyUnwrapped + ordinal
                            converted = Self.converted(&entry.pointee.boxed, in: context)
                        }
                        (persisted.baseAddress.unsafelyUnwrapped + ordinal).initialize(to: converted)
                    }
                    let converted = UnsafeBufferPointer(persisted)
                    applyCreate(table: table.index, key: key, values: converted, record: ObjectRecord(converted))
                    persisted.deinitialize()
                }
            }
            return key
        }
        // Bound first, and the values copied out of the lock: converting a
        // link adds the objects it links to, which may link back to this
        // one (and must find it managed).
        let values = storage.withLockedHeader { added, values in
            if binds { UnmanagedValues.AddedLocation.bind(&added, table: table, key: key, version: working.version + 1) }
            return values.all()
        }
        var persisted = template.defaults
        for (ordinal, value) in values.enumerated() {
            let property = table.property(forOrdinal: ordinal)
            guard property >= 0 else { continue }
            let context = _WriteContext(transaction: self, table: table, key: key, property: property)
            let converted = value._write(in: context)
            if !inProgress.isEmpty, linksToInProgress(converted, property: working.schema[table.index].properties[property]) {
                // A cycle among new objects: create with the default now,
                // link once every object of the cycle exists.
                deferredLinks.append(.set(table: table.index, key: key, property: property, value: converted))
            } else {
                persisted[property] = converted
            }
        }
        apply(.create(table: table.index, key: key, values: persisted))
        if template.hasLinks { inProgress.remove(me) }
        if isOutermost {
            let links = deferredLinks
            deferredLinks = []
            links.forEach(apply)
        }
        return key
    }

    /// The stored form of the value kept in an unmanaged object's entry
    /// (never `nil`), converted where it lies.
    ///
    /// Moved out for the call and back after, bit for bit: a method called
    /// on an existential read from memory runs on a copy (retaining what it
    /// holds), destroyed after, for every value converted. The caller holds
    /// the values' lock, and converting a value without links cannot reach
    /// it again.
    private static func converted(_ value: UnsafeMutablePointer<(any _PersistableProperty)?>, in context: _WriteContext) -> PersistedValue {
        let moved = value.move().unsafelyUnwrapped
        let converted = moved._write(in: context)
        value.initialize(to: moved)
        return converted
    }

    /// The default values and link flag of `table`'s current schema, kept
    /// while one table is added to: building them walks every property
    /// schema (copying each, with its strings).
    private func creationTemplate(_ table: Int) -> CreationTemplate {
        let count = working.schema[table].properties.count
        if let template = lastTemplate, template.table == table, template.defaults.count == count { return template }
        let properties = working.schema[table].properties
        let template = CreationTemplate(table: table, defaults: properties.map(\.defaultValue),
                                        hasLinks: properties.contains { $0.type == .object })
        lastTemplate = template
        return template
    }

    private func linksToInProgress(_ value: PersistedValue, property: PropertySchema) -> Bool {
        guard !inProgress.isEmpty, let target = property.objectType, let table = working.tableIndex(named: target) else { return false }
        return ChangePaths.targets(of: value).contains { inProgress.contains(TableKey(table: table, key: $0)) }
    }

    private func updateExisting(_ key: ObjectKey, in table: TableBinding, from values: ContiguousArray<any _PersistableProperty>, writingAll: Bool) {
        guard let record = working.object(table: table.index, key: key) else { return }
        for (ordinal, value) in values.enumerated() {
            let property = table.property(forOrdinal: ordinal)
            guard property >= 0, ordinal != table.metadata.primaryKeyOrdinal else { continue }
            let context = _WriteContext(transaction: self, table: table, key: key, property: property)
            let newValue = value._write(in: context)
            if writingAll || record[property] != newValue {
                set(table: table.index, key: key, property: property, value: newValue)
            }
        }
    }

    /// The key to store for a link from a property to `object`, adding the
    /// object if it is unmanaged.
    func linkKey(for object: ObjectBase) -> ObjectKey? {
        if let location = object.location, location.table.metadata.isEmbedded, location.frozen == nil,
           !object.addWasRolledBack {
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

/// What creating an object of one table needs, whatever its values: the
/// schema's default values, and whether any property links (only then can
/// converting the object's values add other objects that link back to it).
///
/// A table's schema only grows (properties are appended, never removed or
/// changed), so a template is current while its property count is.
struct CreationTemplate {
    var table: Int
    var defaults: [PersistedValue]
    var hasLinks: Bool
}
