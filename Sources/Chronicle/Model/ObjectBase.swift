import Foundation
import Synchronization

/// The common base of ``Object`` and ``EmbeddedObject``. Subclass those, not this.
///
/// An instance is either *unmanaged* — a plain Swift object whose
/// `@Persisted` values live in the instance — or *managed*: a handle
/// (store, type, object key) whose reads go to the store's current state and
/// whose writes, inside a write transaction, become journal events. Adding an
/// unmanaged object to a store makes that same instance managed.
///
/// ## Sendable
///
/// Objects are `Sendable` handles: a managed object holds only immutable
/// references, and an unmanaged object's values are behind a lock. Swift
/// asks each subclass to restate the conformance; write one line next to
/// your model class:
///
/// ```swift
/// final class Person: Object { @Persisted var name = "" }
/// extension Person: @unchecked Sendable {}
/// ```
///
/// Without it the class still compiles; Swift 6 only warns.
open class ObjectBase: @unchecked Sendable {
    // Safety: `binding` is set at most once (atomically) and is immutable;
    // the `live…` fields are set in `init` and change only in
    // `relocate(to:…)`, which an iteration calls when it holds the only
    // reference to the handle (no other thread can reach it);
    // `unmanagedValues` is only touched under its lock.
    /// A frozen handle's or a key-path recorder's binding.
    let binding = OnceReference<ObjectBinding>()
    /// The values of an unmanaged instance — and, once `add` made it
    /// managed, where it put it — behind a lock whose atomic operations
    /// ThreadSanitizer sees (`WordLock`; not an inline
    /// `Synchronization.Mutex`: ThreadSanitizer cannot see `Mutex` on
    /// Linux, so tasks sharing an unmanaged object — it is `Sendable` —
    /// were reported as racing in every app's sanitizer runs;
    /// `ConcurrencyStressTests.anUnmanagedObjectIsSharedBetweenTasks`).
    /// `nil` for a managed handle, which never reads initial values.
    let unmanagedValues: UnmanagedValues?

    // The location of a live handle Chronicle made (iterating `Results`,
    // `object(ofType:forPrimaryKey:)`, links…), kept in the instance rather
    // than in an `ObjectBinding` (which a frozen handle still gets): the
    // location's fields in every instance, managed or not, for one
    // allocation and free fewer per handle, which cost far more than the
    // space (see the "Performance" article).
    /// A live handle's store, retained by the instance (released in
    /// `deinit`); `nil` otherwise. Unmanaged because a strong reference
    /// was retained and released around every property read.
    private let liveStore: Unmanaged<Store>?
    /// A live handle's table, unretained: the store keeps every binding it
    /// made for its life (`Store.madeBindings`). `nil` unless a live handle.
    private let liveTable: Unmanaged<TableBinding>?
    // The object a live handle is on: an iteration may move a handle that
    // only it holds to the next object (see `relocate(to:…)`).
    /// A live handle's object key.
    @exclusivity(unchecked) private var liveKey: ObjectKey
    /// For a live handle made while reading a published state: the
    /// object's record in that state, and the state's publication sequence
    /// (`0`: none). While the store still publishes that state, a property
    /// read takes its value from here — one atomic load instead of the
    /// store's lock and a trie walk (iterating `Results` makes a handle per
    /// element and reads it at once). Only the record is kept, never the
    /// state: a long-lived handle pins no old version.
    @exclusivity(unchecked) private var liveSnapshot: ObjectRecord?
    /// Instead of `liveSnapshot`, for a handle made while iterating a
    /// table still in its checkpoint file: the block that holds the object
    /// encoded, from which a read decodes the one value it wants (see
    /// ``EncodedBlock``).
    @exclusivity(unchecked) private var liveEncoded: EncodedBlock?
    /// With `liveEncoded`: where in it the object's bytes are, found once
    /// when the handle is made or moved rather than by every read (`nil`
    /// if the block does not hold the object: reads then take the slow
    /// path). Points into the file the block keeps mapped.
    @exclusivity(unchecked) private var liveEncodedPlace: EncodedBlock.Place?
    @exclusivity(unchecked) private var liveSnapshotSequence: UInt64
    /// With `liveEncoded`: where the reads of the object's bytes got to
    /// (``CheckpointTable/EncodedCursor``), so that reading its properties
    /// in order steps over no value twice. Atomic, relaxed: reads on
    /// several threads each store a cursor that is right for the same
    /// bytes, and only `relocate` (with no other reference) moves the
    /// handle to other bytes, resetting it.
    private let liveCursor = Atomic<UInt64>(0)

    /// Creates an unmanaged object holding its properties' default values.
    public required init() {
        switch ConstructionFrame.takeHandle(for: type(of: self)) {
        case .live(let store, let table, let key, let snapshot, let encoded, let sequence):
            // A live handle: never reads initial values.
            liveStore = store
            liveTable = table
            liveKey = key
            liveSnapshot = snapshot
            liveEncoded = encoded
            liveEncodedPlace = encoded?.place(forKey: key.rawValue)
            liveSnapshotSequence = sequence
            unmanagedValues = nil
        case .bound(let handle):
            liveStore = nil
            liveTable = nil
            liveKey = ObjectKey(0)
            liveSnapshot = nil
            liveEncoded = nil
            liveEncodedPlace = nil
            liveSnapshotSequence = 0
            unmanagedValues = nil
            _ = binding.storeIfNil(handle)
        case nil:
            liveStore = nil
            liveTable = nil
            liveKey = ObjectKey(0)
            liveSnapshot = nil
            liveEncoded = nil
            liveEncodedPlace = nil
            liveSnapshotSequence = 0
            unmanagedValues = ConstructionFrame.take()
        }
    }

    deinit {
        liveStore?.release()
    }

    // MARK: Reuse by an iteration

    /// Whether an iteration that holds the only strong reference to this
    /// handle may point it at another object of its table instead of
    /// making a new handle: a live handle (not frozen, not a recorder) that no
    /// weak or unowned reference can still reach. The caller checks the
    /// strong references (`isKnownUniquelyReferenced`) and that the class
    /// keeps nothing but `@Persisted` properties
    /// (``ClassMetadata/allowsHandleReuse``).
    ///
    /// A weak reference to a freed handle reads `nil`, and an unowned one
    /// traps; to a reused handle both would read another object, so a
    /// handle any such reference ever pointed at (the runtime counts both:
    /// `1` is none) is never reused.
    final var isRelocatable: Bool {
        isUnboundLiveHandle && hasNoWeakOrUnownedReferences(self)
    }

    /// Whether this is a live handle, not frozen and not a recorder: what
    /// ``isRelocatable`` asks besides the references to it.
    final var isUnboundLiveHandle: Bool {
        liveTable != nil && binding.loadUnmanaged() == nil
    }

    /// Points this live handle at object `key` of its table, with its
    /// record or its encoded block in the published state numbered
    /// `sequence` (as ``ConstructionFrame/makeLiveHandle(_:store:table:key:snapshot:encoded:sequence:)``
    /// takes them); with a block, `place` is where in it the object's
    /// values are (``EncodedBlock/place(at:)``).
    ///
    /// Only for the iteration that made the handle and holds the only
    /// reference to it (see ``isRelocatable``): to everyone else the
    /// handle was freed, and the same memory became the next object's
    /// handle, as it often does through the allocator.
    ///
    /// `snapshot` is swapped in: on return it holds the record the handle
    /// kept before, for the caller to drop. (Assigned, the new record was
    /// retained for the handle and released as the argument.)
    final func relocate(to key: ObjectKey, snapshot: inout ObjectRecord?, encoded: Unmanaged<EncodedBlock>?,
                        at place: EncodedBlock.Place?, sequence: UInt64) {
        liveKey = key
        swap(&liveSnapshot, &snapshot)
        // Consecutive objects share their block: no retain and release.
        let kept = liveEncoded.map { Unmanaged.passUnretained($0).toOpaque() }
        if kept != encoded?.toOpaque() { liveEncoded = encoded?.takeUnretainedValue() }
        // Read only while `liveEncoded` is set: left as it is otherwise.
        if encoded != nil { liveEncodedPlace = place }
        liveSnapshotSequence = sequence
        liveCursor.store(0, ordering: .relaxed)
    }

    /// ``relocate(to:snapshot:encoded:at:sequence:)`` for a scan of a table
    /// still in its checkpoint file: the handle keeps no record there, so
    /// none is swapped out and dropped (two releases of `nil` per object
    /// otherwise).
    final func relocate(to key: ObjectKey, encoded: Unmanaged<EncodedBlock>, at place: EncodedBlock.Place, sequence: UInt64) {
        liveKey = key
        if liveSnapshot != nil { liveSnapshot = nil }
        // Consecutive objects share their block: no retain and release.
        if liveEncoded.map({ Unmanaged.passUnretained($0).toOpaque() }) != encoded.toOpaque() {
            liveEncoded = encoded.takeUnretainedValue()
        }
        liveEncodedPlace = place
        liveSnapshotSequence = sequence
        liveCursor.store(0, ordering: .relaxed)
    }

    /// The values of an instance made unmanaged (only a managed handle has none).
    var unmanagedStorage: UnmanagedValues {
        guard let unmanagedValues else { preconditionFailure("Chronicle: a managed handle has no unmanaged values") }
        return unmanagedValues
    }

    /// Whether a write that added this (until then unmanaged) instance was
    /// rolled back, and no write added it since: the binding cannot be
    /// undone, so the next `add` creates the object at the key it was bound
    /// to, from its unmanaged values (see ``Store/rolledBackAdds``).
    var addWasRolledBack: Bool {
        guard let added = unmanagedValues?.added else { return false }
        let bound = TableKey(table: added.table.index, key: added.key)
        return added.store.rolledBackAdds.withLock { $0.contains(bound) }
    }

    /// Whether the object belongs to a store.
    public var isManaged: Bool {
        if liveTable != nil { return true }
        if case .frozen = binding.load()?.kind { return true }
        return unmanagedValues?.withLockedHeader { added, _ in added != nil } ?? false
    }

    /// Whether the object is pinned to one version of the store and never changes.
    public var isFrozen: Bool {
        if case .frozen = binding.load()?.kind { return true }
        return false
    }

    /// Whether the object was deleted from its store (or its frozen version
    /// does not contain it). Always `false` for unmanaged objects.
    public var isInvalidated: Bool {
        guard let (table, key, frozen) = location else { return false }
        let state = frozen ?? table.store.readableState()
        return !state.contains(table: table.index, key: key)
    }

    /// ``location``, with a frozen object's state by reference.
    private var managedLocation: (table: TableBinding, key: ObjectKey, frozen: PinnedState?)? {
        if let liveTable { return (liveTable.takeUnretainedValue(), liveKey, nil) }
        if let binding = binding.load() {
            guard case .frozen(let table, let key, let frozen) = binding.kind else { return nil }
            return (table, key, frozen)
        }
        guard let added = unmanagedValues?.added else { return nil }
        return (added.table, added.key, nil)
    }

    /// The managed location of the object, or `nil` when unmanaged.
    var location: (table: TableBinding, key: ObjectKey, frozen: StoreState?)? {
        managedLocation.map { ($0.table, $0.key, $0.frozen?.state) }
    }

    // MARK: Property access

    func readProperty<V: _PersistableProperty>(ordinal: Int, as _: V.Type) -> V {
        // Fast path: a live managed object. No reference count of the table
        // is touched, and no metadata beyond `V`'s is needed (this function
        // is generic and, called from user modules, unspecialised: every
        // type it mentions costs a runtime metadata lookup per call).
        if let table = liveTable, let (value, property) = liveValue(ordinal: ordinal) {
            return V._read(value, in: _ReadContext(unmanagedTable: table, key: liveKey,
                                                   property: property, ordinal: ordinal, frozen: nil))
        }
        return readPropertySlowly(ordinal: ordinal, as: V.self)
    }

    /// The fast path of a live handle's property read: the value of the
    /// property at `ordinal` as reads see it now, and its index in the
    /// store's schema; `nil` when the slow path must answer (a computed
    /// property, a deleted object).
    ///
    /// Not generic, so it is compiled once, fully optimised; it touches no
    /// reference count.
    ///
    /// - Complexity: O(1) while the state the handle was made from is still
    ///   the published one; otherwise an O(log n) look-up under the store's lock.
    @inline(never)
    private final func liveValue(ordinal: Int) -> (PersistedValue, Int)? {
        let table = liveTable.unsafelyUnwrapped
        let property = table._withUnsafeGuaranteedRef { $0.property(forOrdinal: ordinal) }
        guard property >= 0 else { return nil }
        let store = liveStore.unsafelyUnwrapped
        if liveSnapshotSequence != 0, store._withUnsafeGuaranteedRef({ $0.isPublished(liveSnapshotSequence) }) {
            if liveEncoded == nil { return (liveSnapshot.unsafelyUnwrapped[property], property) }
            if let value = liveEncoded.unsafelyUnwrapped.value(forKey: liveKey.rawValue, property: property) {
                return (value, property)
            }
        }
        let index = table._withUnsafeGuaranteedRef { $0.index }
        guard let record = store._withUnsafeGuaranteedRef({ $0.readableRecord(table: index, key: liveKey) }) else { return nil }
        return (record[property], property)
    }

    /// The value of the property at `ordinal` as a live managed object's
    /// reads see it now, or `nil` when the generic read must answer
    /// (unmanaged, recording, frozen, a computed property, a deleted
    /// object): the fast path of ``_PersistableProperty/_get(_:ordinal:)``
    /// for primitive types, which need no read context.
    ///
    /// Not generic, and the value is returned owned, so that a type's
    /// conversion can take it over (a `String` without another retain).
    ///
    /// - Complexity: O(1) while the state a live handle was made from is
    ///   still the published one; otherwise O(log n) under the store's lock.
    @inline(never)
    final func currentValue(ordinal: Int) -> PersistedValue? {
        liveTable == nil ? nil : liveValue(ordinal: ordinal)?.0
    }

    /// Calls `body` with the value of the property at `ordinal` as a live
    /// managed object's reads see it now, and returns what it returns; `nil`
    /// when the generic read must answer (see ``currentValue(ordinal:)``).
    ///
    /// Inlined into each primitive type's read: while the handle's remembered
    /// record is current, `body` reads the value in place — no copy of it
    /// returned through an optional and destroyed, an outlined switch over its
    /// cases each way, a large part of the read. Otherwise the value comes from
    /// ``currentValue(ordinal:)``.
    ///
    /// - Complexity: that of ``currentValue(ordinal:)``.
    @inline(__always)
    final func withCurrentValue<R>(ordinal: Int, _ body: (UnsafePointer<PersistedValue>) -> R) -> R? {
        withCurrentValue(ordinal: ordinal, slot: { slot, tag in
            var value = RecordStorage.load(slot, tag: tag)
            return body(&value)
        }, words: { words, tag in
            var words = words
            var value = withUnsafeBytes(of: &words) { RecordStorage.load($0.baseAddress.unsafelyUnwrapped, tag: tag) }
            return body(&value)
        }, body)
    }

    /// ``withCurrentValue(ordinal:_:)``, handing a remembered record's value
    /// to `slot` where it lies (its slot and kind, see ``RecordStorage``):
    /// a primitive read converts from there without making a
    /// ``PersistedValue`` (and destroying it) in between. A plain integer
    /// or short string read from a checkpoint file goes to `words` as the
    /// two words a slot would hold (owning nothing) and its kind.
    @inline(__always)
    final func withCurrentValue<R>(ordinal: Int, slot: (UnsafeRawPointer, UInt64) -> R,
                                   words: ((UInt64, UInt64), UInt64) -> R,
                                   _ body: (UnsafePointer<PersistedValue>) -> R) -> R? {
        // Only a live handle with a remembered record has a sequence.
        if liveSnapshotSequence != 0 {
            let (property, fixedSlot) = liveTable.unsafelyUnwrapped._withUnsafeGuaranteedRef { $0.propertyAndSlot(forOrdinal: ordinal) }
            if property >= 0, liveStore.unsafelyUnwrapped._withUnsafeGuaranteedRef({ $0.isPublished(liveSnapshotSequence) }) {
                if liveEncoded == nil {
                    // The handle keeps the record, and the record a value for
                    // each property of the schema (see `IntegerComparison.accepts`),
                    // at the slot the schema fixes, if it does.
                    return withExtendedLifetime(self) {
                        liveSnapshot.unsafelyUnwrapped.unretained.withSlot(property, fixedOffset: fixedSlot, slot)
                    }
                }
                // Decoded here, not through `currentValue`: the property and
                // the publication are not looked up again, and the value is
                // not returned out of an outlined call through an optional.
                // Unretained: the handle keeps the block.
                // A plain integer or short string comes as a slot's words:
                // no `PersistedValue` made and destroyed around the read.
                // The object's bytes were found when the handle was made
                // or moved (`liveEncodedPlace`); without them (the block
                // does not hold the object) the read takes the slow path.
                let block = Unmanaged.passUnretained(liveEncoded.unsafelyUnwrapped)
                var cursor = CheckpointTable.EncodedCursor(word: liveCursor.load(ordering: .relaxed))
                let read: CheckpointTable.EncodedRead = if let place = liveEncodedPlace {
                    withExtendedLifetime(self) {
                        block._withUnsafeGuaranteedRef { $0.read(at: place, property: property, cursor: &cursor) }
                    }
                } else {
                    .unreadable
                }
                liveCursor.store(cursor.word, ordering: .relaxed)
                switch consume read {
                case .slot(let tag, let slotWords):
                    return words(slotWords, tag)
                case .value(var value):
                    return body(&value)
                case .unreadable:
                    break
                }
            }
        }
        guard var value = currentValue(ordinal: ordinal) else { return nil }
        return body(&value)
    }

    /// An instance `add` made managed in a write another thread has in
    /// progress, read from this thread: the published state has no record
    /// of it until that write commits, so it reads its own values, which
    /// `add` keeps, as it did before the add; if the write committed
    /// meanwhile, the record it published. `nil` when
    /// the instance was not added so, or its object was deleted since, or
    /// the write that added it rolled back: a read of it is then an error.
    ///
    /// The order makes it exact: a writer publishes its state before it
    /// withdraws as the store's writer, so a write seen finished here (no
    /// writer) either published the record, which the look-up after finds,
    /// or rolled back.
    private func readWhileAddedElsewhere(table: TableBinding, key: ObjectKey) -> AddedRead? {
        // `key` is the added location's: `managedLocation` came from it.
        guard liveTable == nil, binding.loadUnmanaged() == nil, let storage = unmanagedValues,
              let added = storage.added, added.version > 0 else { return nil }
        let store = table.store
        let writer = store.owner.load(ordering: .acquiring)
        let published = store.committedState()
        if let record = published.object(table: table.index, key: key) { return .published(record) }
        guard published.version < added.version, writer != 0, writer != currentThreadID() else { return nil }
        return .ownValues(storage)
    }

    /// Where a read of an instance being added elsewhere finds its value.
    private enum AddedRead {
        /// The write committed meanwhile: its record.
        case published(ObjectRecord)
        /// The write is still in progress: the instance's own values.
        case ownValues(UnmanagedValues)
    }

    /// Unmanaged, added, recording, frozen, computed (linking objects) and
    /// deleted objects.
    @inline(never)
    private func readPropertySlowly<V: _PersistableProperty>(ordinal: Int, as _: V.Type) -> V {
        if liveTable == nil, binding.loadUnmanaged() == nil, let value = unmanagedStorage.valueIfUnmanaged(ordinal: ordinal, as: V.self) {
            return value
        }
        if let (table, key, frozen) = managedLocation {
            let property = table.property(forOrdinal: ordinal)
            let context = _ReadContext(table: table, key: key, property: property, ordinal: ordinal, frozen: frozen)
            // A property the journal does not have yet reads as objects
            // that predate it will once it is added: its declared default.
            if property < 0 { return V._read(table.metadata.declaredDefaults[ordinal] ?? .null, in: context) }
            // Look the record up without copying the state (see `readableRecord`).
            let record = if let frozen { frozen.state.object(table: table.index, key: key) } else {
                table.store.readableRecord(table: table.index, key: key)
            }
            guard let record else {
                switch frozen == nil ? readWhileAddedElsewhere(table: table, key: key) : nil {
                case .published(let record)?: return V._read(record[property], in: context)
                case .ownValues(let storage)?: return storage.value(at: ordinal, as: V.self)
                case nil: break
                }
                preconditionFailure("Chronicle: reading '\(table.metadata.propertyName(ordinal: ordinal))' of a \(table.metadata.name) that was deleted or is not in this version. Check `isInvalidated` before reading an object another write may delete.")
            }
            return V._read(record[property], in: context)
        }
        if case .recording(let recorder, let prefix) = binding.load()?.kind {
            let name = recorder.record(prefix: prefix, ordinal: ordinal, of: type(of: self))
            if let value = V._recordingValue(_Recording(recorder: recorder, path: name)) { return value }
        }
        return unmanagedStorage.value(at: ordinal, as: V.self)
    }

    func writeProperty<V: _PersistableProperty>(ordinal: Int, _ value: V) {
        // Unmanaged first, checked without building a location: setting a
        // new object's properties, the common case, skips that work.
        if liveTable == nil, binding.loadUnmanaged() == nil, let storage = unmanagedValues,
           storage.setIfUnmanaged(ordinal: ordinal, value) {
            return
        }
        if let (table, key, frozen) = location {
            let name = table.metadata.propertyName(ordinal: ordinal)
            precondition(frozen == nil, "Chronicle: cannot set '\(name)' of a frozen \(table.metadata.name); call thaw() and write to the live object inside store.write { }.")
            guard let transaction = table.store.currentTransaction() else {
                preconditionFailure("Chronicle: cannot set '\(name)' of a managed \(table.metadata.name) outside a write transaction. Make the change inside store.write { } or store.asyncWrite { }.")
            }
            let property = table.property(forOrdinal: ordinal)
            precondition(property >= 0, "Chronicle: '\(name)' of \(table.metadata.name) is computed from links (LinkingObjects) and cannot be set.")
            let context = _WriteContext(transaction: transaction, table: table, key: key, property: property)
            transaction.set(table: table.index, key: key, property: property, value: value._write(in: context))
            return
        }
        // Otherwise a key-path recording instance, which ignores writes.
    }
}

/// A top-level model object: it lives in a table of its own and can have a
/// primary key. Subclass it and declare properties with ``Persisted``:
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(primaryKey: true) var _id: UUID
///     @Persisted var name = ""
/// }
/// extension Dog: @unchecked Sendable {}
/// ```
open class Object: ObjectBase, @unchecked Sendable {
    /// Creates an unmanaged object holding its properties' default values.
    public required init() { super.init() }
}

/// An object that exists only inside its parent: it has no primary key, it
/// is deleted with its parent (or when the parent's property stops pointing
/// at it), and it cannot be queried on its own.
open class EmbeddedObject: ObjectBase, @unchecked Sendable {
    /// Creates an unmanaged object holding its properties' default values.
    public required init() { super.init() }
}

extension ObjectBase: Hashable {
    /// Managed objects are equal when they are the same object of the same
    /// store (at the same frozen version, if frozen); unmanaged objects only
    /// to themselves.
    public static func == (lhs: ObjectBase, rhs: ObjectBase) -> Bool {
        if lhs === rhs { return true }
        guard let l = lhs.location, let r = rhs.location else { return false }
        return l.table === r.table && l.key == r.key && l.frozen?.version == r.frozen?.version
    }

    /// Hashes the identity that `==` compares.
    public func hash(into hasher: inout Hasher) {
        if let location {
            hasher.combine(ObjectIdentifier(location.table))
            hasher.combine(location.key)
        } else {
            hasher.combine(ObjectIdentifier(self))
        }
    }
}

/// Gives model classes a stable `id` for SwiftUI lists and other
/// `Identifiable` consumers, as the seeds' `Person: Object, ObjectKeyIdentifiable`.
public protocol ObjectKeyIdentifiable: Identifiable where ID == ObjectIdentity {}

extension ObjectKeyIdentifiable where Self: ObjectBase {
    /// The object's identity: its store, type and key once managed.
    public var id: ObjectIdentity { ObjectIdentity(self) }
}

/// The identity of an object, as ``ObjectKeyIdentifiable`` exposes it.
public struct ObjectIdentity: Hashable, Sendable {
    private let table: ObjectIdentifier
    private let key: Int64

    init(_ object: ObjectBase) {
        if let location = object.location {
            table = ObjectIdentifier(location.table)
            key = location.key.rawValue
        } else {
            table = ObjectIdentifier(object)
            key = -1
        }
    }
}
