import Synchronization

// Publication: the one state every read sees (or this thread's write in
// progress), swapped in whole after each commit.

extension Store {
    /// The state reads see: this thread's write in progress, or the last
    /// published state.
    func readableState() -> StoreState { readableSnapshot().state }

    /// The record of object `key` in `table` as reads see it (this
    /// thread's write in progress, or the last published state), without
    /// copying the state: the fast path of a managed property read.
    func readableRecord(table: Int, key: ObjectKey) -> ObjectRecord? {
        if owner.load(ordering: .acquiring) == currentThreadID(), let transaction = slot.transaction {
            return transaction.record(table: table, key: key)
        }
        return published.withLock { $0 }.state.object(table: table, key: key)
    }

    /// The last published (committed) state.
    func committedState() -> StoreState { published.withLock { $0 }.state }

    /// The state reads see, and its publication sequence when it is the
    /// published one (`0` inside this thread's write, whose state is not).
    func readableSnapshot() -> (state: StoreState, sequence: UInt64) {
        if owner.load(ordering: .acquiring) == currentThreadID(), let transaction = slot.transaction {
            return (transaction.state, 0)
        }
        let box = published.withLock { $0 }
        return (box.state, box.sequence)
    }

    /// Whether the published state is still the one numbered `sequence` and
    /// this thread has no write in progress, so that a record taken from
    /// that state is what a read would find now. One atomic load; no lock.
    ///
    /// Why this is exact: the sequence is stored under the same lock as the
    /// state it numbers, so a thread that saw a newer state (through the
    /// lock, or a write of its own) also sees its number; and numbers are
    /// never reused, so an equal number means the same state.
    @inline(__always)
    func isPublished(_ sequence: UInt64) -> Bool {
        guard publishedSequence.load(ordering: .acquiring) == sequence else { return false }
        // No write in progress (the common case) needs no thread id.
        let owner = owner.load(ordering: .acquiring)
        return owner == 0 || owner != currentThreadID()
    }

    /// Makes `state` the one every read sees.
    func publish(_ state: StoreState) {
        published.withLock { current in
            let next = current.sequence &+ 1
            current = PublishedState(state, sequence: next)
            publishedSequence.store(next, ordering: .releasing)
        }
    }

    /// The write in progress on this thread, if any.
    func currentTransaction() -> Transaction? {
        owner.load(ordering: .acquiring) == currentThreadID() ? slot.transaction : nil
    }

    /// Whether this thread is inside a write on this store.
    public var isInWriteTransaction: Bool { currentTransaction() != nil }
}

/// An immutable published state, shared by reference.
final class PublishedState: Sendable {
    /// The sequence of the state a store opens with; `0` means "not a
    /// published state" wherever a sequence is remembered.
    static let firstSequence: UInt64 = 1
    let state: StoreState
    /// Counts publications, one per commit (or replayed step); unlike the
    /// state's version it never repeats in a store's life.
    let sequence: UInt64
    init(_ state: StoreState, sequence: UInt64) {
        self.state = state
        self.sequence = sequence
    }
}
