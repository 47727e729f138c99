/// What makes an ``ObjectBase`` instance managed (or a key-path recorder).
final class ObjectBinding: Sendable {
    enum Kind: Sendable {
        /// A handle on an object of a store; `frozen` pins it to one state.
        case managed(TableBinding, ObjectKey, frozen: StoreState?)
        /// A throwaway instance that records which properties a key path reads.
        case recording(KeyPathRecorder, prefix: [String])
    }
    let kind: Kind
    init(_ kind: Kind) { self.kind = kind }
}

/// The context in which a managed property value is read. Implementation detail.
public struct _ReadContext {
    let table: TableBinding
    let key: ObjectKey
    /// The property's index in the store's schema (−1 for computed properties).
    let property: Int
    let ordinal: Int
    let state: StoreState
    let frozen: StoreState?
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
