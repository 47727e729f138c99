import Synchronization

/// A reference that is set at most once, atomically, and then read without
/// locking: the role of `Synchronization.AtomicLazyReference`, specialised.
///
/// Why not `AtomicLazyReference`: its `load()` is not inlinable, so every call
/// goes through the standard library's generic entry point and asks the runtime
/// for `Unmanaged<Instance>` and `Optional` metadata — on every managed
/// property read. This type is compiled in the module with its `Instance`
/// known, so `load()` is one acquiring atomic load.
///
/// The reference is retained once when stored and released on `deinit`.
struct OnceReference<Instance: AnyObject & Sendable>: ~Copyable, @unchecked Sendable {
    // Safety: `storage` is only accessed atomically; the instance it points
    // to is retained by this value from the successful store to `deinit`.
    private let storage = Atomic<UInt>(0)

    init() {}

    /// The stored instance, or `nil` if none was stored yet.
    @inline(__always)
    func load() -> Instance? {
        let bits = storage.load(ordering: .acquiring)
        guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<Instance>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The stored instance, unretained: this value keeps it alive, so a
    /// caller that holds this value can use it without touching its
    /// reference count (`_withUnsafeGuaranteedRef`).
    @inline(__always)
    func loadUnmanaged() -> Unmanaged<Instance>? {
        let bits = storage.load(ordering: .acquiring)
        guard let pointer = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged<Instance>.fromOpaque(pointer)
    }

    /// Stores `desired` if nothing is stored yet; returns what is stored
    /// afterwards (`desired`, or the instance another thread stored first).
    func storeIfNil(_ desired: Instance) -> Instance {
        let retained = Unmanaged.passRetained(desired)
        let bits = UInt(bitPattern: retained.toOpaque())
        let (exchanged, original) = storage.compareExchange(expected: 0, desired: bits, ordering: .acquiringAndReleasing)
        if exchanged { return desired }
        retained.release()
        return Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(bitPattern: original)!).takeUnretainedValue()
    }

    deinit {
        if let pointer = UnsafeRawPointer(bitPattern: storage.load(ordering: .acquiring)) {
            Unmanaged<Instance>.fromOpaque(pointer).release()
        }
    }
}
