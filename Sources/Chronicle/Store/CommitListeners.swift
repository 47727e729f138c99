import Synchronization

/// Callbacks a store runs after each commit it publishes: how
/// `ChronicleSync` learns of a local write at once instead of looking at
/// the store's version every so often.
///
/// A listener runs on the committing thread, after the write's commit is
/// as durable as configured and the writer lock is released (or, for
/// commits another process appended, after they are folded): it must only
/// hand the news on (resume a task, yield to a stream), never block or write.
final class CommitListeners: Sendable {
    private let entries = Locked<[UInt64: @Sendable (UInt64) -> Void]>([:])
    private let nextID = Atomic<UInt64>(1)
    /// How many listeners there are: a commit with none takes no lock.
    private let count = Atomic<Int>(0)

    func add(_ listener: @escaping @Sendable (UInt64) -> Void) -> UInt64 {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        entries.withLock { $0[id] = listener }
        count.add(1, ordering: .releasing)
        return id
    }

    func remove(_ id: UInt64) {
        if entries.withLock({ $0.removeValue(forKey: id) }) != nil { count.subtract(1, ordering: .releasing) }
    }

    /// Runs every listener with the version the store reached.
    /// - Complexity: O(listeners); one atomic load when there are none.
    func notify(_ version: UInt64) {
        guard count.load(ordering: .acquiring) > 0 else { return }
        for listener in entries.withLock({ Array($0.values) }) { listener(version) }
    }
}

extension Store {
    /// Runs `listener` after every later commit of this store, with the
    /// version it reached, until ``removeCommitListener(_:)``: a write's
    /// once it is durable (as configured), another process's once folded.
    /// See ``CommitListeners`` for what a listener may do.
    ///
    /// - Returns: The listener's id, for ``removeCommitListener(_:)``.
    package func addCommitListener(_ listener: @escaping @Sendable (_ version: UInt64) -> Void) -> UInt64 {
        commitListeners.add(listener)
    }

    /// Stops running the listener `id` (``addCommitListener(_:)``).
    package func removeCommitListener(_ id: UInt64) {
        commitListeners.remove(id)
    }
}
