/// How a managed handle made by ``Store/handle(_:table:key:_:)`` reads its
/// object.
enum HandleReading {
    /// Live: it reads the store's current state (this thread's write in
    /// progress, or the last published state) at each read.
    case live
    /// Frozen: pinned to one state.
    case frozen(PinnedState)
    /// Live, remembering its object's record in the published state
    /// numbered `sequence` — the record itself, or the block that holds it
    /// encoded — and reading it without the lock until the next commit (see
    /// ``ObjectBase/liveSnapshot``). With neither, the same as ``live``.
    case remembering(ObjectRecord?, encoded: EncodedBlock?, sequence: UInt64)

    /// Frozen in `state`, or live when it is `nil`.
    static func frozen(in state: StoreState?) -> HandleReading {
        guard let state else { return .live }
        return .frozen(PinnedState(state))
    }

    /// Frozen in `state`, or live when it is `nil`.
    static func frozen(in state: PinnedState?) -> HandleReading {
        guard let state else { return .live }
        return .frozen(state)
    }

    /// For object `key` of `table`, found in `state`: frozen in `frozen` if
    /// it is not `nil`; otherwise live, remembering the object's record when
    /// `state` is the published state numbered `sequence` (not `0`).
    ///
    /// - Complexity: O(log *n*): one look-up now saves one per property read.
    static func found(in state: StoreState, table: Int, key: ObjectKey, sequence: UInt64, frozen: StoreState?) -> HandleReading {
        if let frozen { return .frozen(PinnedState(frozen)) }
        guard sequence != 0 else { return .live }
        return .remembering(state.object(table: table, key: key), encoded: nil, sequence: sequence)
    }
}
