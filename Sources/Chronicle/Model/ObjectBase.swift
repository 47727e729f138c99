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
    // `unmanagedValues` is only touched under its mutex. Managed reads never
    // touch mutable instance state.
    let binding = OnceReference<ObjectBinding>()
    /// The values of an unmanaged instance, behind a pthread mutex (not an
    /// inline `Synchronization.Mutex`: ThreadSanitizer cannot see `Mutex`
    /// on Linux, so tasks sharing an unmanaged object — it is `Sendable` —
    /// were reported as racing in every app's sanitizer runs;
    /// `ConcurrencyStressTests.anUnmanagedObjectIsSharedBetweenTasks`).
    /// `nil` for a managed handle, which never reads initial values.
    let unmanagedValues: UnmanagedValues?
    /// Set when a write that added this (until then unmanaged) instance was
    /// rolled back: the binding cannot be undone, so the next `add` creates
    /// the object at the key it was bound to, from its unmanaged values.
    let addWasRolledBack = Atomic<Bool>(false)

    /// Creates an unmanaged object holding its properties' default values.
    public required init() {
        if let handle = ConstructionFrame.takeHandleBinding(for: type(of: self)) {
            // A managed handle: bound from the start, never reads initial values.
            unmanagedValues = nil
            _ = binding.storeIfNil(handle)
            return
        }
        unmanagedValues = ConstructionFrame.take()
    }

    /// The values of an instance made unmanaged (only a managed handle has none).
    var unmanagedStorage: UnmanagedValues {
        guard let unmanagedValues else { preconditionFailure("Chronicle: a managed handle has no unmanaged values") }
        return unmanagedValues
    }

    /// Whether the object belongs to a store.
    public var isManaged: Bool {
        if case .managed = binding.load()?.kind { return true }
        return false
    }

    /// Whether the object is pinned to one version of the store and never changes.
    public var isFrozen: Bool {
        if case .managed(_, _, let frozen?) = binding.load()?.kind { _ = frozen; return true }
        return false
    }

    /// Whether the object was deleted from its store (or its frozen version
    /// does not contain it). Always `false` for unmanaged objects.
    public var isInvalidated: Bool {
        guard case .managed(let table, let key, let frozen) = binding.load()?.kind else { return false }
        let state = frozen ?? table.store.readableState()
        return !state.contains(table: table.index, key: key)
    }

    /// The managed location of the object, or `nil` when unmanaged.
    var location: (table: TableBinding, key: ObjectKey, frozen: StoreState?)? {
        guard case .managed(let table, let key, let frozen) = binding.load()?.kind else { return nil }
        return (table, key, frozen)
    }

    // MARK: Property access

    func readProperty<V: _PersistableProperty>(ordinal: Int, as _: V.Type) -> V {
        // Fast path: a live managed object. No reference count of the table
        // is touched, and no metadata beyond `V`'s is needed (this function
        // is generic and, called from user modules, unspecialised: every
        // type it mentions costs a runtime metadata lookup per call).
        if let bits = binding.loadUnmanaged(),
           let (value, property) = bits._withUnsafeGuaranteedRef({ $0.liveValue(ordinal: ordinal) }) {
            // Only trivial values leave the binding (no reference count).
            let (table, key) = bits._withUnsafeGuaranteedRef { ($0.liveTable.unsafelyUnwrapped, $0.liveKey) }
            return V._read(value, in: _ReadContext(unmanagedTable: table, key: key,
                                                   property: property, ordinal: ordinal, frozen: nil))
        }
        return readPropertySlowly(ordinal: ordinal, as: V.self)
    }

    /// Unmanaged, recording, frozen, computed (linking objects) and deleted objects.
    @inline(never)
    private func readPropertySlowly<V: _PersistableProperty>(ordinal: Int, as _: V.Type) -> V {
        guard let binding = binding.load() else {
            return unmanagedStorage.withLock { $0[ordinal] } as! V
        }
        switch binding.kind {
        case .managed(let table, let key, let frozen):
            let property = table.property(forOrdinal: ordinal)
            let context = _ReadContext(table: table, key: key, property: property, ordinal: ordinal, frozen: frozen)
            if property < 0 { return V._read(.null, in: context) }
            // Look the record up without copying the state (see `readableRecord`).
            let record = if let frozen { frozen.object(table: table.index, key: key) } else {
                table.store.readableRecord(table: table.index, key: key)
            }
            guard let record else {
                preconditionFailure("Chronicle: reading '\(table.metadata.propertyName(ordinal: ordinal))' of a \(table.metadata.name) that was deleted or is not in this version. Check `isInvalidated` before reading an object another write may delete.")
            }
            return V._read(record.values[property], in: context)
        case .recording(let recorder, let prefix):
            let name = recorder.record(prefix: prefix, ordinal: ordinal, of: type(of: self))
            if let value = V._recordingValue(_Recording(recorder: recorder, path: name)) { return value }
            return unmanagedStorage.withLock { $0[ordinal] } as! V
        }
    }

    func writeProperty<V: _PersistableProperty>(ordinal: Int, _ value: V) {
        guard let binding = binding.load() else {
            unmanagedStorage.withLock { $0[ordinal] = value }
            return
        }
        switch binding.kind {
        case .managed(let table, let key, let frozen):
            let name = table.metadata.propertyName(ordinal: ordinal)
            precondition(frozen == nil, "Chronicle: cannot set '\(name)' of a frozen \(table.metadata.name); call thaw() and write to the live object inside store.write { }.")
            guard let transaction = table.store.currentTransaction() else {
                preconditionFailure("Chronicle: cannot set '\(name)' of a managed \(table.metadata.name) outside a write transaction. Make the change inside store.write { } or store.asyncWrite { }.")
            }
            let property = table.property(forOrdinal: ordinal)
            precondition(property >= 0, "Chronicle: '\(name)' of \(table.metadata.name) is computed from links (LinkingObjects) and cannot be set.")
            let context = _WriteContext(transaction: transaction, table: table, key: key, property: property)
            transaction.set(table: table.index, key: key, property: property, value: value._write(in: context))
        case .recording:
            break
        }
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
