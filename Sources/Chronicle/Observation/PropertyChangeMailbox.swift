/// An object stream's mailbox: the property changes (and the deletion) the
/// committing writer delivered that the stream's consumer has not taken yet,
/// and the consumer waiting for them. It holds ``PropertyChange`` values; the
/// stream (``ObjectChanges``) wraps them in an ``ObjectChange`` as it yields.
///
/// Buffering policy: while the consumer is behind, changes *coalesce*: one
/// pending change per property, keeping the oldest old value and the newest
/// new value. Memory is bounded by the number of observed properties, no
/// matter how many commits arrive. A deletion is delivered after any
/// pending change, and ends the stream.
///
/// Not generic: the committing writer calls ``deliver(_:)`` for every observer
/// a commit wakes, and a buffer generic over the app's model type ran
/// unspecialised there — type-metadata look-ups for its lock's closure, its
/// continuation and its result, most of a wake-up's cost. The stream wraps what
/// the buffer hands out in its element type on the consumer's side.
final class PropertyChangeMailbox: Sendable {
    /// What the consumer receives.
    enum Delivery: Sendable {
        case change([PropertyChange])
        case deleted
    }

    private struct State {
        var pending: [PropertyChange] = []
        var deleted = false
        var finished = false
        /// Unsafe, not checked: the one waiter is taken out under the lock
        /// before it is resumed, so it is resumed once; a checked one
        /// allocated a canary per wait and checked it again at each resume,
        /// on the committing writer's path to the wake-up.
        var waiter: UnsafeContinuation<Delivery?, Never>?
    }
    private let state = Locked(State())

    func deliver(_ changes: [PropertyChange]) {
        let waiter: UnsafeContinuation<Delivery?, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            for change in changes {
                if let index = state.pending.firstIndex(where: { $0.name == change.name }) {
                    let first = state.pending[index]
                    state.pending[index] = PropertyChange(name: change.name, oldValue: first.oldValue, newValue: change.newValue)
                } else {
                    state.pending.append(change)
                }
            }
            return nil
        }
        waiter?.resume(returning: .change(changes))
    }

    func finishWithDeletion() {
        let waiter: UnsafeContinuation<Delivery?, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                state.finished = true
                return waiter
            }
            state.deleted = true
            return nil
        }
        waiter?.resume(returning: .deleted)
    }

    /// Ends the stream: the consumer's pending or next `next()` returns `nil`.
    func cancel() {
        let waiter = state.withLock { state in
            state.finished = true
            state.pending = []
            state.deleted = false
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next delivery, waiting for one if none is pending; `nil` once the
    /// stream has ended or the calling task is cancelled.
    func next() async -> Delivery? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Delivery?, Never>) in
                let ready: Delivery?? = state.withLock { state in
                    if !state.pending.isEmpty {
                        defer { state.pending = [] }
                        return .some(.change(state.pending))
                    }
                    if state.deleted {
                        state.deleted = false
                        state.finished = true
                        return .some(.deleted)
                    }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            cancel()
        }
    }

    var pendingCount: Int { state.withLock { $0.pending.count } }
    /// Whether a consumer is waiting in ``next()`` (for tests).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }
}
