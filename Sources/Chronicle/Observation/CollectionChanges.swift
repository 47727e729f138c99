import Synchronization

/// An `AsyncSequence` of a collection's changes: ``CollectionChange/initial(_:)``
/// first, then ``CollectionChange/update(_:deletions:insertions:modifications:)``.
///
/// ## Semantics
///
/// - **Registration.** The stream is registered when `changes()` returns;
///   its baseline is the collection at that moment.
/// - **Buffering.** Commits the consumer has not read yet coalesce into one
///   update computed against the newest state; memory is bounded by one
///   snapshot of the collection. A batch whose net effect is nothing is
///   skipped.
/// - **Modifications.** An element is modified when one of the observed key
///   paths changed on it (no key paths: any of its own properties).
/// - **Termination.** The stream ends when the consuming task is cancelled,
///   or when the stream and its iterator are dropped (which also removes
///   the registration).
public struct CollectionChanges<Collection: Sendable>: AsyncSequence, Sendable {
    /// What the stream delivers.
    public typealias Element = CollectionChange<Collection>
    /// Change streams never throw.
    public typealias Failure = Never

    let subscription: ObservationSubscription<CollectionObserver<Collection>>

    /// Starts consuming the stream; iterate it once.
    public func makeAsyncIterator() -> Iterator { Iterator(subscription: subscription) }

    /// Delivers the stream's changes.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: ObservationSubscription<CollectionObserver<Collection>>
        /// The next change, or `nil` once the stream has ended or the task is cancelled.
        public mutating func next() async -> CollectionChange<Collection>? {
            await subscription.observer.next()
        }
    }

    static func make(store: Store, collection: Collection, source: CollectionSource) -> CollectionChanges {
        let observer = store.observers.register(store: store) { state in
            (CollectionObserver(source: source, collection: collection, baseline: state), source.interest(state))
        }
        let subscription = ObservationSubscription(observer: observer, registry: store.observers) { [observer] in
            observer.cancel()
        }
        return CollectionChanges(subscription: subscription)
    }
}
