import Synchronization

/// How many writes of a store are under way, from before each waits for
/// the writer lock until its commit is durable: what the store's follower
/// looks at to stand aside while the process writes (Store+CatchUp.swift).
/// An object of its own so the follower can hold it without holding the
/// store.
final class WritesUnderWay: Sendable {
    private let count = Atomic<Int>(0)

    /// A write begins (before it waits for the writer lock).
    /// - Complexity: O(1), one atomic add.
    @inline(__always)
    func begin() { count.wrappingAdd(1, ordering: .relaxed) }

    /// A write ends (after its commit is durable, or it failed).
    /// - Complexity: O(1), one atomic subtract.
    @inline(__always)
    func end() { count.wrappingSubtract(1, ordering: .relaxed) }

    /// Whether any write is under way. Relaxed: a look, which a write
    /// beginning just after may contradict (the follower then only folds
    /// what that write would have).
    var any: Bool { count.load(ordering: .relaxed) != 0 }
}
