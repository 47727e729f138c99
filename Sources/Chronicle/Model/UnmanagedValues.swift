/// The `@Persisted` values of an unmanaged object and the lock guarding
/// them: the lock and the primitive values' record storage in the header,
/// an entry per value as tail elements (two allocations: this object and
/// the record's). Once `add` makes the instance managed, the header also
/// holds where it put it (``AddedLocation``).
///
/// A value of a primitive type (a number, a string, a date, `Data`, a
/// UUID, a ``PersistableEnum``…) lives in ``Header/record``, a stored
/// record's storage, in the slot and with the kind the store's record of
/// the object would give it; a value of any other type (an optional, a
/// collection, a link) in its entry, as itself. So `add` of an object whose values are
/// all primitive files that storage as the new object's record: no value
/// is converted, copied or boxed in an existential on the way, and the
/// journal encodes the values from it. The storage is never written
/// again once the object is added: every write then checks ``Header/added``.
///
/// The lock is a ``WordLock`` in the header: a lock's word must not move
/// and a stored property's address is not stable in Swift, while the
/// header and tail elements of a `ManagedBuffer` sit at fixed offsets in
/// the object, which never moves. A word, not a `pthread_mutex` (40 bytes,
/// and about 60 instructions a lock and unlock around the same atomic
/// operations): every object a write creates takes it about six times.
///
/// Not `Sendable` (`ManagedBuffer` cannot be); ``ObjectBase``, which is,
/// holds it and touches the values only under its lock.
final class UnmanagedValues: ManagedBuffer<UnmanagedValues.Header, UnmanagedValues.Entry> {
    struct Header {
        let count: Int
        /// Where `add` put the instance; `nil` while it is unmanaged.
        var added: AddedLocation?
        /// The primitive values, each in its slot (a value kept in its
        /// entry has a null slot, and no other slot is null). Written only
        /// while the instance is unmanaged, and held by no one else until
        /// then.
        let record: RecordStorage
        /// The ``WordLock``'s word, touched only through ``WordLock`` and
        /// found by ``lockWordOffset``. Last, away from the header's
        /// address: ThreadSanitizer records an access to a field of the
        /// header (`header.pointee.added`) at the header's address, and
        /// would take the lock's atomic operations there for a race with it.
        var lockWord: UInt32
    }

    /// Where ``Header/lockWord`` is in the header (a constant the
    /// optimiser folds).
    @inline(__always)
    private static var lockWordOffset: Int { MemoryLayout<Header>.offset(of: \Header.lockWord)! }

    /// One value's declared type and, unless it is primitive, the value.
    struct Entry {
        /// The `@Persisted` property's type.
        let type: any _PersistableProperty.Type
        /// The value, for a type not kept in a slot
        /// (``_PersistableProperty/_initializeUnmanagedSlot(_:)`` returns
        /// `nil`); `nil` for one kept in ``Header/record``.
        var boxed: (any _PersistableProperty)?
    }

    /// The object an instance made managed by `add` stands for.
    ///
    /// Kept here, under the values' lock, rather than in an ``ObjectBinding``
    /// of its own: every instance `add` makes managed already has this
    /// allocation, and a binding was one more to make and free per object
    /// added. The price is the lock on each read of such an instance, which is
    /// the rarer path: handles from queries and look-ups keep their location in
    /// the instance.
    struct AddedLocation {
        let table: TableBinding
        /// A managed object keeps its store alive (its table binding
        /// references the store unowned).
        let store: Store
        let key: ObjectKey
        /// The version of the commit that creates the object (0: it existed
        /// already). Until the store publishes that version, other threads'
        /// reads find no record, and read the instance's own values instead
        /// (see ``ObjectBase``'s reads).
        let version: UInt64

        /// Sets `added` to object `key` of `table` unless `add` already
        /// bound the instance (to another store, on another thread): the
        /// first binding stays. Call with the values' lock held.
        static func bind(_ added: inout AddedLocation?, table: TableBinding, key: ObjectKey, version: UInt64) {
            if added == nil { added = AddedLocation(table: table, store: table.store, key: key, version: version) }
        }
    }

    /// Storage holding the `count` values registered at `entries`, `slots`
    /// (16 bytes each) and `tags`, moved (they are left uninitialised).
    /// O(count), two allocations (the values' and their record's).
    static func make(movingFrom entries: UnsafeMutablePointer<Entry>, slots: UnsafeMutableRawPointer,
                     tags: UnsafePointer<UInt64>, count: Int) -> UnmanagedValues {
        // Moved bit for bit: a string's or `Data`'s references go with it.
        let record = RecordStorage.moving(count: count, slots: slots, tags: tags)
        let buffer = create(minimumCapacity: count) { _ in
            Header(count: count, added: nil, record: record, lockWord: 0)
        }
        // `create` allocates an instance of the class it is called on.
        let storage = unsafeDowncast(buffer, to: UnmanagedValues.self)
        storage.withUnsafeMutablePointers { _, values in
            values.moveInitialize(from: entries, count: count)
        }
        return storage
    }

    /// The lock's word, at its fixed address inside the header.
    @inline(__always)
    private static func lockWord(_ header: UnsafeMutablePointer<Header>) -> UnsafeMutablePointer<UInt32> {
        (UnsafeMutableRawPointer(header) + lockWordOffset).assumingMemoryBound(to: UInt32.self)
    }

    deinit {
        // `ManagedBuffer` destroys the header (releasing the record); the
        // tail elements are ours.
        withUnsafeMutablePointers { header, values in
            // Entries whose values are all in the record hold nothing to
            // release (a metatype and `nil`): destroying them went through
            // the entry type's value witness, element by element.
            if header.pointee.record.containsNull { _ = values.deinitialize(count: header.pointee.count) }
        }
    }

    /// Runs `body` with exclusive access to the location `add` put the
    /// instance at (`nil` while unmanaged) and to the values. `body` must
    /// not keep the buffer, nor reach this object's lock again (the lock
    /// is not recursive).
    @inline(__always)
    func withLockedHeader<R>(
        _ body: (_ added: inout AddedLocation?, Values) throws -> R
    ) rethrows -> R {
        try withUnsafeMutablePointers { header, entries in
            let word = Self.lockWord(header)
            WordLock.lock(word)
            defer { WordLock.unlock(word) }
            return try body(&header.pointee.added,
                            Values(entries: UnsafeMutableBufferPointer(start: entries, count: header.pointee.count),
                                   recordReference: Unmanaged.passUnretained(header.pointee.record)))
        }
    }

    /// The values, seen under the lock (see ``withLockedHeader(_:)``).
    struct Values {
        let entries: UnsafeMutableBufferPointer<Entry>
        /// Not retained: the header holds it while the lock is held, and
        /// a retain and release per property written were a fifth of the
        /// write's cost. (`unowned(unsafe)` retained it at each use.)
        let recordReference: Unmanaged<RecordStorage>

        /// The record of the values in slots.
        var record: RecordStorage { recordReference.takeUnretainedValue() }

        var count: Int { entries.count }

        /// Whether every value is in ``record``: then it is what the store
        /// files as the object's record (its slots laid out as the
        /// schema's properties are, when the class's ordinals map to them
        /// in order).
        var areAllInRecord: Bool { !recordReference._withUnsafeGuaranteedRef { $0.containsNull } }

        /// Whether the value at `ordinal` is in its entry: its slot is null
        /// (no primitive value is, see
        /// ``_PrimitivePersistable/_initializeUnmanagedSlot(_:)``). Read
        /// from the record's header word, not the entry: reading an
        /// optional existential copies it.
        @inline(__always)
        func isBoxed(_ ordinal: Int) -> Bool {
            RecordStorage.Tag.isNull(recordReference._withUnsafeGuaranteedRef { $0.tag(of: ordinal) })
        }

        /// The value at `ordinal` as its property's type `V`.
        @inline(__always)
        func value<V: _PersistableProperty>(_ ordinal: Int, as _: V.Type) -> V {
            let value = recordReference._withUnsafeGuaranteedRef { record in
                record.slot(of: ordinal) { slot, tag in
                    RecordStorage.Tag.isNull(tag) ? (entries[ordinal].boxed.unsafelyUnwrapped as! V) : V._fromUnmanagedSlot(slot, tag: tag)
                }
            }
            guard let value else {
                preconditionFailure("Chronicle: the unmanaged value \(record.value(at: ordinal)) cannot be read as a \(V.self)")
            }
            return value
        }

        /// The value at `ordinal`, as an existential of its property's type.
        func value(_ ordinal: Int) -> any _PersistableProperty {
            if isBoxed(ordinal) { return entries[ordinal].boxed.unsafelyUnwrapped }
            return entries[ordinal].type._unmanagedValue(ordinal, in: self)
        }

        /// The stored form of the value at `ordinal` if it is in ``record``
        /// (`nil` if it is kept in its entry).
        @inline(__always)
        func storedValue(_ ordinal: Int) -> PersistedValue? {
            isBoxed(ordinal) ? nil : record.value(at: ordinal)
        }

        /// Every value, as existentials.
        func all() -> ContiguousArray<any _PersistableProperty> {
            ContiguousArray((0..<count).map { value($0) })
        }

        /// Sets the value at `ordinal`, of its property's type `V`.
        @inline(__always)
        func set<V: _PersistableProperty>(_ ordinal: Int, to value: V) {
            if isBoxed(ordinal) {
                entries[ordinal].boxed = value
                return
            }
            recordReference._withUnsafeGuaranteedRef { record in
                record.replaceSlot(ordinal) { slot in
                    guard let tag = value._initializeUnmanagedSlot(slot) else {
                        preconditionFailure("Chronicle: a \(V.self) cannot be kept in a primitive property's slot")
                    }
                    return tag
                }
            }
        }

        /// Sets the value at `ordinal` to `value`, whose type may differ
        /// from the property's (``Store/create(_:value:update:)`` takes
        /// values by name).
        ///
        /// A value the property's slot cannot hold as its type (a string for
        /// an `Int`, an optional…) is kept in the entry instead, as it would
        /// have been before slots: `add` then converts it, and the store
        /// rejects a value of the wrong kind with a typed error.
        func set(_ ordinal: Int, toAny value: any _PersistableProperty) {
            let entry = entries[ordinal]
            if isBoxed(ordinal) {
                entries[ordinal].boxed = value
                return
            }
            // Tried on the stack first: the property's slot is replaced
            // only by a value its type reads back.
            withUnsafeTemporaryAllocation(byteCount: 16, alignment: 16) { scratch in
                let slot = scratch.baseAddress.unsafelyUnwrapped
                if let tag = value._initializeUnmanagedSlot(slot) {
                    // Of the slot's width too: a slot is replaced in place.
                    if entry.type._fromUnmanagedSlot(slot, tag: tag) != nil,
                       RecordStorage.width(tag) == RecordStorage.width(record.tag(of: ordinal)) {
                        record.replaceSlot(ordinal) { target in
                            target.copyMemory(from: slot, byteCount: RecordStorage.width(tag))
                            return tag
                        }
                        return
                    }
                    RecordStorage.deinitializeSlot(slot, tag: tag)
                }
                record.replace(ordinal, with: .null)
                entries[ordinal].boxed = value
            }
        }
    }

    /// The number of values.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }

    /// Where `add` put the instance, or `nil` while it is unmanaged.
    var added: AddedLocation? {
        withLockedHeader { added, _ in added }
    }

    /// Makes the instance stand for object `key` of `table`, unless `add`
    /// already did.
    func bindIfUnmanaged(table: TableBinding, key: ObjectKey) {
        withLockedHeader { added, _ in AddedLocation.bind(&added, table: table, key: key, version: 0) }
    }

    /// Makes the instance unmanaged again, when it is still bound to
    /// `location`: for an instance whose add rolled back, bound to a table
    /// that another type has since taken (see ``Transaction/add(_:update:)``).
    func unbind(from location: TableKey) {
        withLockedHeader { added, _ in
            if let bound = added, bound.table.index == location.table, bound.key == location.key { added = nil }
        }
    }

    /// The value at `ordinal`, as an existential of its property's type.
    func value(at ordinal: Int) -> any _PersistableProperty {
        withLockedHeader { _, values in values.value(ordinal) }
    }

    /// The value at `ordinal` as its property's type `V`, whether or not
    /// the instance was added: what `add` keeps, and what another thread
    /// reads while the write that adds the instance is in progress.
    func value<V: _PersistableProperty>(at ordinal: Int, as _: V.Type) -> V {
        withLockedHeader { _, values in values.value(ordinal, as: V.self) }
    }

    /// Every value, as existentials.
    func allValues() -> ContiguousArray<any _PersistableProperty> {
        withLockedHeader { _, values in values.all() }
    }

    /// Sets the value at `ordinal` to `value`, whose type may differ from
    /// the property's (see ``Values/set(_:toAny:)``).
    func set(_ value: any _PersistableProperty, at ordinal: Int) {
        withLockedHeader { _, values in values.set(ordinal, toAny: value) }
    }

    /// The value at `ordinal` while the instance is unmanaged; `nil` once
    /// `add` made it managed.
    @inline(__always)
    func valueIfUnmanaged<V: _PersistableProperty>(ordinal: Int, as _: V.Type) -> V? {
        withLockedHeader { added, values in added == nil ? values.value(ordinal, as: V.self) : nil }
    }

    /// Sets the value at `ordinal` if the instance is still unmanaged;
    /// returns whether it was.
    @inline(__always)
    func setIfUnmanaged<V: _PersistableProperty>(ordinal: Int, _ value: V) -> Bool {
        withLockedHeader { added, values in
            guard added == nil else { return false }
            values.set(ordinal, to: value)
            return true
        }
    }

    /// Checks that every value is in one place: in its entry (its slot
    /// null), or in the record as a value its property's type reads back.
    func _checkInvariants() {
        withLockedHeader { _, values in
            for ordinal in 0..<values.count {
                let entry = values.entries[ordinal]
                if values.isBoxed(ordinal) {
                    precondition(entry.boxed != nil, "UnmanagedValues: value \(ordinal) is in neither its entry nor its slot")
                } else {
                    precondition(entry.boxed == nil, "UnmanagedValues: value \(ordinal) is in its entry and its slot")
                    let readable = values.record.slot(of: ordinal) { entry.type._fromUnmanagedSlot($0, tag: $1) != nil }
                    precondition(readable, "UnmanagedValues: the slot of value \(ordinal) does not hold a \(entry.type)")
                }
            }
            precondition(values.record.count == values.count, "UnmanagedValues: \(values.count) values, a record of \(values.record.count)")
        }
    }
}

extension _PersistableProperty {
    /// The value at `ordinal` of `values`, a property of this type, as an
    /// existential (called on the entry's type, which opens it).
    static func _unmanagedValue(_ ordinal: Int, in values: UnmanagedValues.Values) -> any _PersistableProperty {
        values.value(ordinal, as: Self.self)
    }
}
