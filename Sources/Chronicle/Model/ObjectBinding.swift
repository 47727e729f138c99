/// What makes an ``ObjectBase`` instance managed (or a key-path recorder).
final class ObjectBinding: Sendable {
    enum Kind: Sendable {
        /// A handle on an object of a store; `frozen` pins it to one state.
        case managed(TableBinding, ObjectKey, frozen: StoreState?)
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
    private let store: Store?

    init(_ kind: Kind) {
        self.kind = kind
        if case .managed(let table, _, _) = kind { store = table.store } else { store = nil }
        if case .managed(let table, let key, nil) = kind {
            liveTable = Unmanaged.passUnretained(table)
            liveKey = key
        } else {
            liveTable = nil
            liveKey = ObjectKey(0)
        }
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
    let frozen: StoreState?

    init(table: TableBinding, key: ObjectKey, property: Int, ordinal: Int, frozen: StoreState?) {
        self.init(unmanagedTable: Unmanaged.passUnretained(table), key: key, property: property, ordinal: ordinal, frozen: frozen)
    }

    init(unmanagedTable: Unmanaged<TableBinding>, key: ObjectKey, property: Int, ordinal: Int, frozen: StoreState?) {
        self.unmanagedTable = unmanagedTable
        self.key = key
        self.property = property
        self.ordinal = ordinal
        self.frozen = frozen
    }
}

/// The context in which a property value is written. Implementation detail.
public struct _WriteContext {
    let transaction: Transaction
    let table: TableBinding
    let key: ObjectKey
    let property: Int
}

/// The state of a key-path recording read. Implementation detail.
public struct _Recording: Sendable {
    let recorder: KeyPathRecorder
    /// The persisted path recorded so far, this property included.
    let path: [String]
}
