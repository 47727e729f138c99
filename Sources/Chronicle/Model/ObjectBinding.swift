/// What makes an ``ObjectBase`` instance a frozen handle or a key-path
/// recorder. (A live handle Chronicle makes keeps its location in the
/// instance, see `ObjectBase.liveStore`; an instance `add` made managed, in
/// its unmanaged values' header, see ``UnmanagedValues/AddedLocation``.)
final class ObjectBinding: Sendable {
    enum Kind: Sendable {
        /// A handle on an object of a store, pinned to one state.
        case frozen(TableBinding, ObjectKey, PinnedState)
        /// A throwaway instance that records which properties a key path reads.
        case recording(KeyPathRecorder, prefix: [String])
    }
    let kind: Kind
    /// A frozen object keeps its store alive (its table binding references
    /// the store unowned).
    let store: Store?

    init(_ kind: Kind) {
        self.kind = kind
        if case .frozen(let table, _, _) = kind { store = table.store } else { store = nil }
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
    // more state copy per property read was a large part of the read.
    let frozenState: PinnedState?
    /// The state a frozen object is pinned to; `nil` for a live one.
    var frozen: StoreState? { frozenState?.state }

    init(table: TableBinding, key: ObjectKey, property: Int, ordinal: Int, frozen: PinnedState?) {
        self.init(unmanagedTable: Unmanaged.passUnretained(table), key: key, property: property, ordinal: ordinal, frozen: frozen)
    }

    init(unmanagedTable: Unmanaged<TableBinding>, key: ObjectKey, property: Int, ordinal: Int, frozen: PinnedState?) {
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
    // for each value written cost a retain and a release of each for
    // every property of every object written.
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
