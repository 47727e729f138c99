import Synchronization
internal import ChronicleSystem

/// How a store's follower (Store+CatchUp.swift) reaches the store: a
/// strong reference taken only while the store is alive, as a weak
/// reference would give, without one.
///
/// The first weak reference to an object moves its reference counts to a
/// side table for good, and from then on every retain and release of it
/// takes the runtime's slow path. A store is retained and released on
/// paths users run millions of times — a look-up by primary key, an
/// `add` — and its follower, on a thread of its own, outlives it by a
/// moment: a weak reference cost a few percent of those paths.
///
/// The store owns its relay and retires it as its `deinit` begins. The
/// follower asks ``store()``: under the relay's lock, the pointer is valid
/// (the store's memory is not freed before `deinit` has retired the
/// relay, and `deinit` waits for the lock), and `swift_tryRetain` takes a
/// strong reference unless the store's destruction has begun. So the
/// follower either holds the store as any owner does, or gets `nil`.
final class StoreRelay: Sendable {
    private let pointer = Mutex<Unmanaged<Store>?>(nil)

    /// Lets ``store()`` reach `store`; until ``retire()``, `store` must be
    /// alive or in its `deinit`.
    func attach(_ store: Store) {
        pointer.withLock { $0 = .passUnretained(store) }
    }

    /// Called as the store's `deinit` begins: nothing reaches it after.
    func retire() {
        pointer.withLock { $0 = nil }
    }

    /// The store, retained, unless it was never attached, is retired, or
    /// is being destroyed.
    func store() -> Store? {
        pointer.withLock { store -> Store? in
            guard let store, chronicle_try_retain(store.toOpaque()) else { return nil }
            return store.takeRetainedValue()
        }
    }
}
