import Synchronization

/// What makes an ``ObjectBase`` instance managed when its location is not
/// in the instance: a frozen handle, an unmanaged instance made managed by
/// `add`, a key-path recorder. (A live handle Chronicle makes keeps its
/// location in the instance, see `ObjectBase.liveStore`.)
final class ObjectBinding: Sendable {
    enum Kind: Sendable {
        /// A handle on an object of a store; `frozen` pins it to one state.
        case managed(TableBinding, ObjectKey, frozen: FrozenState?)
        /// A throwaway instance that records which properties a key path reads.
        case recording(KeyPathRecorder, prefix: [String])
    }
    let kind: Kind
    /// For a live (managed, not frozen) binding: its table, unretained —
    /// `kind` holds the strong reference for as long as this binding lives.
    /// The property-read fast path goes through it without touching the
    /// table's reference count.
    let liveTable: Unmanaged<TableBinding>?
    /// The object key of a live binding.
    let liveKey: ObjectKey
    /// A managed object keeps its store alive (its table binding references
    /// the store unowned).
    let store: Store?
    /// `store`, unretained, for the read fast path (`store` keeps it alive;
    /// going through the table's `unowned` reference cost a strong retain
    /// and release of the store per read).
    private let liveStore: Unmanaged<Store>?
    /// Set when the write that added the (until then unmanaged) instance
    /// this binding made managed was rolled back: the binding cannot be
    /// undone, so the next `add` creates the object at the key it was bound
    /// to, from its unmanaged values. Here, not in the instance: only such
    /// an instance can have it set.
    let addWasRolledBack = Atomic<Bool>(false)

    /// The fast path of a managed property read: for a live binding, the
    /// value of the property at `ordinal` as reads see it now, and its
    /// index in the store's schema; `nil` when the slow path must answer
    /// (not live, a computed property, a deleted object).
    ///
    /// Not generic, so it is compiled once, fully optimised, and touches no
    /// reference count: the binding is kept alive by its object, the table
    /// and store by the binding.
    ///
    /// - Complexity: O(log n), a look-up under the store's lock.
    @inline(never)
    func liveValue(ordinal: Int) -> (PersistedValue, Int)? {
        // Unmanaged references and no `if let` of the record: each binding
        // of a reference or record to a local cost a retain and a release,
        // atomic operations that were most of a read's time.
        guard let liveTable else { return nil }
        let property = liveTable._withUnsafeGuaranteedRef { $0.property(forOrdinal: ordinal) }
        guard property >= 0 else { return nil }
        let store = liveStore.unsafelyUnwrapped
        let table = liveTable._withUnsafeGuaranteedRef { $0.index }
        guard let record = store._withUnsafeGuaranteedRef({ $0.readableRecord(table: table, key: liveKey) }) else { return nil }
        return (record.values[property], property)
    }

    init(_ kind: Kind) {
        self.kind = kind
        if case .managed(let table, _, _) = kind { store = table.store } else { store = nil }
        liveStore = store.map { Unmanaged.passUnretained($0) }
        if case .managed(let table, let key, nil) = kind {
            liveTable = Unmanaged.passUnretained(table)
            liveKey = key
        } else {
            liveTable = nil
            liveKey = ObjectKey(0)
        }
    }
}

/// A frozen state, shared by reference: by a frozen handle's binding, the
/// read contexts it makes and the collections they make.
///
/// A read context holding the state itself (`StoreState?`, four words) was
/// destroyed after every property read, live ones included, by an outlined
/// call the optimiser could not drop (about 25 of a live read's 224
/// instructions, callgrind, W3); a `nil` reference needs no destroying.
final class FrozenState: Sendable {
    let state: StoreState

    init(_ state: StoreState) {
        self.state = state
    }
}

/// The context in which a managed property value is read. Implementation detail.
public struct _ReadContext {
    /// The table, unretained: a context lives only for the duration of one
    /// synchronous read, while the object that made it holds the table.
    let unmanagedTable: Unmanaged<TableBinding>
    var table: TableBinding { unmanagedTable.takeUnretainedValue() }
    let key: ObjectKey
    /// The property's index in the store's schema (−1 for computed properties).
    let property: Int
    let ordinal: Int
    // No `state`: no conversion reads it, and building and destroying one
    // more state copy per property read cost about a third of the read.
    let frozenState: FrozenState?
    /// The state a frozen object is pinned to; `nil` for a live one.
    var frozen: StoreState? { frozenState?.state }

    init(table: TableBinding, key: ObjectKey, property: Int, ordinal: Int, frozen: FrozenState?) {
        self.init(unmanagedTable: Unmanaged.passUnretained(table), key: key, property: property, ordinal: ordinal, frozen: frozen)
    }

    init(unmanagedTable: Unmanaged<TableBinding>, key: ObjectKey, property: Int, ordinal: Int, frozen: FrozenState?) {
        self.unmanagedTable = unmanagedTable
        self.key = key
        self.property = property
        self.ordinal = ordinal
        frozenState = frozen
    }
}

/// The context in which a property value is written. Implementation detail.
public struct _WriteContext {
    // Unowned: a context lives only for the `_write(in:)` call it is made
    // for, while the write that made it holds both; counting references
    // for each value written cost about 8 retains and releases an object
    // of four properties (callgrind, W1).
    unowned(unsafe) let transaction: Transaction
    unowned(unsafe) let table: TableBinding
    let key: ObjectKey
    let property: Int
}

/// The state of a key-path recording read. Implementation detail.
public struct _Recording: Sendable {
    let recorder: KeyPathRecorder
    /// The persisted path recorded so far, this property included.
    let path: [String]
}
