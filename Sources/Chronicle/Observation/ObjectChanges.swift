/// An `AsyncSequence` of the changes to one object or projection.
///
/// Create one with `changes(keyPaths:)` on an object or projection:
///
/// ```swift
/// for await change in person.changes(keyPaths: [\.firstName]) {
///     if case .change(_, let properties) = change { print(properties) }
/// }
/// ```
///
/// ## Semantics
///
/// - **Registration.** The stream is registered when `changes(keyPaths:)`
///   returns, before you start iterating: a commit made after that call is
///   delivered, even if iteration starts later.
/// - **Filtering.** A change is delivered only when a property in the
///   observed key paths' dependency sets changed. Without key paths, every
///   persisted property of the object (every projected property of a
///   projection) is observed.
/// - **Order.** Changes arrive in commit order.
/// - **Buffering.** While the consumer is behind, changes coalesce per
///   property (oldest old value, newest new value), so a slow consumer
///   holds bounded memory.
/// - **Termination.** After the object is deleted the stream delivers
///   ``ObjectChange/deleted`` and ends. Cancelling the consuming task ends
///   it too; so does dropping the stream and its iterator, which also
///   removes the registration.
/// - **Single consumer.** Iterate each stream once; create another stream
///   for another consumer.
public struct ObjectChanges<T: _ObjectProjecting>: AsyncSequence, Sendable {
    /// What the stream delivers.
    public typealias Element = ObjectChange<T>
    /// Change streams never throw.
    public typealias Failure = Never

    let subscription: ObservationSubscription<ObjectObserver<T>>

    /// Starts consuming the stream; iterate it once.
    public func makeAsyncIterator() -> Iterator { Iterator(subscription: subscription) }

    /// Delivers the stream's changes.
    public struct Iterator: AsyncIteratorProtocol {
        let subscription: ObservationSubscription<ObjectObserver<T>>
        /// The next change, or `nil` once the stream has ended or the task is cancelled.
        public mutating func next() async -> ObjectChange<T>? {
            switch await subscription.observer.buffer.next() {
            case .change(let properties): .change(subscription.observer.element, properties)
            case .deleted: .deleted
            case nil: nil
            }
        }
    }
}

/// Keeps an observer registered while a stream, its iterator or a
/// notification token exists; removes it when the last one goes away.
final class ObservationSubscription<Observer: StoreObserver>: Sendable {
    let observer: Observer
    let registry: ObserverRegistry
    let onEnd: @Sendable () -> Void

    init(observer: Observer, registry: ObserverRegistry, onEnd: @escaping @Sendable () -> Void) {
        self.observer = observer
        self.registry = registry
        self.onEnd = onEnd
    }

    deinit {
        registry.unregister(observer)
        onEnd()
    }
}

extension _ObjectProjecting {
    /// A stream of this object's changes, filtered by key paths.
    ///
    /// A key path to a computed property observes the persisted properties
    /// it reads (`\.fullName` over `firstName` and `lastName` reports a
    /// change of either, by its persisted name). For a projection, the key
    /// paths name projected properties; a change to a base property reports
    /// only the projected properties that depend on it. See
    /// ``ObjectChanges`` for buffering and termination.
    ///
    /// - Precondition: the object is managed and not frozen; each key path
    ///   reads at least one persisted property.
    public func changes(keyPaths: [PartialKeyPath<Self>] = []) -> ObjectChanges<Self> {
        let names = keyPaths.flatMap { ObservedProperties.names(of: $0, for: Self.self) }
        do { return try changes(keyPaths: names) } catch {
            preconditionFailure("Chronicle: \(error)")
        }
    }

    /// A stream of this object's changes, filtered by property names:
    /// `["firstName"]`, or nested, `["dogs.name"]`.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)`` for a name that
    ///   is not persisted (or not projected, for a projection).
    public func changes(keyPaths: [String]) throws(ObservationError) -> ObjectChanges<Self> {
        let properties = try ObservedProperties.resolve(keyPaths, for: Self.self)
        let root = _rootObject
        guard let location = root.location else {
            preconditionFailure("Chronicle: only managed objects can be observed; add this \(type(of: root)) to a store first")
        }
        precondition(location.frozen == nil, "Chronicle: a frozen \(location.table.metadata.name) never changes and cannot be observed; observe the live object (thaw())")
        let store = location.table.store
        let observer = store.observers.register(store: store) { state in
            let observer = ObjectObserver(table: location.table, key: location.key, properties: properties,
                                          baselineVersion: state.version, element: self, in: state)
            return (observer, observer.interest(in: state))
        }
        let subscription = ObservationSubscription(observer: observer, registry: store.observers) { [buffer = observer.buffer] in
            buffer.cancel()
        }
        return ObjectChanges(subscription: subscription)
    }
}
