import Synchronization

/// What a collection stream observes: how to list the collection's
/// elements in a state, which tables and objects can change it, and which
/// elements a commit modified.
struct CollectionSource: Sendable {
    /// The elements' identities (object keys as `.link`, or the values).
    let elements: @Sendable (StoreState) -> [PersistedValue]
    /// What to be woken for.
    let interest: @Sendable (StoreState) -> ObserverInterest
    /// The elements whose observed properties this commit changed.
    let modified: @Sendable (ChangeSet, StoreState, StoreState) -> Set<PersistedValue>
}

/// Observes a collection for a ``CollectionChanges`` stream.
///
/// Dispatch only marks the stream dirty and notes which elements were
/// modified (O(1) per commit beyond the modified elements); the consumer
/// computes the index diff when it reads, against the newest state. So
/// commits the consumer has not read yet coalesce into one update, and
/// memory stays bounded by one snapshot of the collection.
final class CollectionObserver<Collection: Sendable>: StoreObserver, @unchecked Sendable {
    // Safety: `source`, `collection` and `baselineVersion` are immutable;
    // the mutable parts are in `state`, behind its mutex.
    private struct State {
        var delivered: [PersistedValue]
        var deliveredInitial = false
        var latest: StoreState?
        var modified: Set<PersistedValue> = []
        var finished = false
        var waiter: CheckedContinuation<Void, Never>?
    }
    private enum Step { case value(CollectionChange<Collection>?), wait }
    let source: CollectionSource
    let collection: Collection
    let baselineVersion: UInt64
    private let state: Locked<State>

    init(source: CollectionSource, collection: Collection, baseline: StoreState) {
        self.source = source
        self.collection = collection
        baselineVersion = baseline.version
        state = Locked(State(delivered: source.elements(baseline)))
    }

    func commitDidApply(_ changes: ChangeSet, old: StoreState, new: StoreState) -> ObserverInterest? {
        let modified = source.modified(changes, old, new)
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard !state.finished else { return nil }
            state.latest = new
            state.modified.formUnion(modified)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
        return source.interest(new)
    }

    func cancel() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The next change: `.initial` first, then one `.update` per batch of
    /// commits the consumer had not read.
    func next() async -> CollectionChange<Collection>? {
        while true {
            let step: Step = state.withLock { state in
                if state.finished || Task.isCancelled { return .value(nil) }
                if !state.deliveredInitial {
                    state.deliveredInitial = true
                    return .value(.initial(collection))
                }
                guard let latest = state.latest else { return .wait }
                state.latest = nil
                let current = source.elements(latest)
                let diff = IndexDiff.compute(old: state.delivered, new: current)
                let modifications = diff.kept.filter { state.modified.contains(state.delivered[$0.old]) }.map(\.old)
                state.delivered = current
                state.modified = []
                if diff.deletions.isEmpty && diff.insertions.isEmpty && modifications.isEmpty { return .wait }
                return .value(.update(collection, deletions: diff.deletions, insertions: diff.insertions, modifications: modifications))
            }
            switch step {
            case .value(let change): return change
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let ready = state.withLock { state -> Bool in
                            if state.latest != nil || state.finished || Task.isCancelled { return true }
                            state.waiter = continuation
                            return false
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    cancel()
                }
            }
        }
    }
}
