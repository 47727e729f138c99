import Synchronization

/// Holds an object stream's undelivered changes and its waiting consumer.
///
/// Buffering policy: while the consumer is behind, changes *coalesce*: one
/// pending change per property, keeping the oldest old value and the newest
/// new value. Memory is bounded by the number of observed properties, no
/// matter how many commits arrive. A deletion is delivered after any
/// pending change, and ends the stream.
final class ObjectChangeBuffer<T: Sendable>: Sendable {
    private struct State {
        var pending: [PropertyChange] = []
        var deleted = false
        var finished = false
        var waiter: CheckedContinuation<ObjectChange<T>?, Never>?
    }
    private let state = Locked(State())
    let object: T

    init(object: T) { self.object = object }

    func deliver(_ changes: [PropertyChange]) {
        let handOff: (CheckedContinuation<ObjectChange<T>?, Never>, [PropertyChange])? = state.withLock { state in
            guard !state.finished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, changes)
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
        if let (waiter, changes) = handOff { waiter.resume(returning: .change(object, changes)) }
    }

    func finishWithDeletion() {
        let waiter: CheckedContinuation<ObjectChange<T>?, Never>? = state.withLock { state in
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

    /// The next change, waiting for one if none is pending; `nil` once the
    /// stream has ended or the calling task is cancelled.
    func next() async -> ObjectChange<T>? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ObjectChange<T>?, Never>) in
                let ready: ObjectChange<T>?? = state.withLock { state in
                    if !state.pending.isEmpty {
                        defer { state.pending = [] }
                        return .some(.change(object, state.pending))
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
}
