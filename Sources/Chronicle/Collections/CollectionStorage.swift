/// Where a ``List``'s, ``MutableSet``'s or ``Map``'s elements are: in a
/// store, read through the object that owns the collection (managed), or
/// in local values behind a lock (unmanaged). The one place those
/// collections branch on it.
///
/// A managed collection allocates no lock: it has no local values.
enum CollectionStorage<Local: Sendable>: Sendable {
    case managed(CollectionOwner)
    case unmanaged(Locked<Local>)

    /// The owner of a managed collection; `nil` for an unmanaged one.
    var owner: CollectionOwner? {
        guard case .managed(let owner) = self else { return nil }
        return owner
    }

    /// What `managed` makes of the owner, or what `unmanaged` makes of the
    /// local values (under their lock).
    @inline(__always)
    func read<R>(managed: (CollectionOwner) -> R, unmanaged: (inout Local) -> R) -> R {
        switch self {
        case .managed(let owner): managed(owner)
        case .unmanaged(let local): local.withLock { unmanaged(&$0) }
        }
    }

    /// Changes the elements: a managed collection's inside the write in
    /// progress (a precondition failure naming `operation` outside one, or
    /// on a frozen collection), an unmanaged one's local values under their
    /// lock.
    @inline(__always)
    func edit(_ operation: String, managed: (Transaction, CollectionOwner) -> Void, unmanaged: (inout Local) -> Void) {
        read(managed: { managed($0.transaction(operation), $0) }, unmanaged: unmanaged)
    }
}

/// A collection property type whose elements are in a ``CollectionStorage``:
/// ``List``, ``MutableSet`` and ``Map``.
protocol StoredCollection: AnyObject {
    associatedtype Local: Sendable
    var storage: CollectionStorage<Local> { get }
    /// A managed collection: the property `owner` names.
    init(owner: CollectionOwner)
}

extension StoredCollection {
    /// Where the collection lives, when it is managed.
    var owner: CollectionOwner? { storage.owner }

    /// The managed collection a property read in `context` returns.
    static func managed(in context: _ReadContext) -> Self {
        Self(owner: CollectionOwner(table: context.table, key: context.key, property: context.property, frozen: context.frozenState))
    }

    /// The kind of a property holding this collection of `element` values.
    static func propertyKind(_ collection: CollectionKind, of element: _PropertyKind) -> _PropertyKind {
        var kind = element
        kind.collection = collection
        return kind
    }
}

extension List: StoredCollection {}
extension MutableSet: StoredCollection {}
extension Map: StoredCollection {}
