#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `@Persisted` values of an unmanaged object and the mutex guarding
/// them, in one allocation: the mutex in the header, the values as tail
/// elements. Once `add` makes the instance managed, the header also holds
/// where it put it (``AddedLocation``).
///
/// A `Locked<ContiguousArray<any _PersistableProperty>>` took three: the
/// lock object, its separately allocated mutex (a mutex must not move, and
/// a stored property's address is not stable in Swift) and the array's
/// buffer — each freed again when the object dies. The header and tail
/// elements of a `ManagedBuffer` sit at fixed offsets in the object, which
/// never moves, so the mutex can live there.
///
/// A `pthread_mutex`, not `Synchronization.Mutex`, for the reason ``Locked``
/// gives: ThreadSanitizer cannot see `Mutex` on Linux.
///
/// Not `Sendable` (`ManagedBuffer` cannot be); ``ObjectBase``, which is,
/// holds it and touches the values only through ``withLock(_:)``.
final class UnmanagedValues: ManagedBuffer<UnmanagedValues.Header, any _PersistableProperty> {
    struct Header {
        /// First, so that it is at the header's address (Swift lays a
        /// struct's stored properties out in declaration order).
        var mutex: pthread_mutex_t
        let count: Int
        /// Where `add` put the instance; `nil` while it is unmanaged.
        var added: AddedLocation?
    }

    /// The object an instance made managed by `add` stands for.
    ///
    /// Kept here, under the values' mutex, rather than in an ``ObjectBinding``
    /// of its own: every instance `add` makes managed already has this
    /// allocation, and a binding was one more to make and free per object
    /// added. The price is the mutex on each read of such an instance, which is
    /// the rarer path: handles from queries and look-ups keep their location in
    /// the instance.
    struct AddedLocation {
        let table: TableBinding
        /// A managed object keeps its store alive (its table binding
        /// references the store unowned).
        let store: Store
        let key: ObjectKey
        /// The version of the commit that creates the object (0: it existed
        /// already). Until the store publishes that version, other threads'
        /// reads find no record, and read the instance's own values instead
        /// (see ``ObjectBase``'s reads).
        let version: UInt64

        /// Sets `added` to object `key` of `table` unless `add` already
        /// bound the instance (to another store, on another thread): the
        /// first binding stays. Call with the values' lock held.
        static func bind(_ added: inout AddedLocation?, table: TableBinding, key: ObjectKey, version: UInt64) {
            if added == nil { added = AddedLocation(table: table, store: table.store, key: key, version: version) }
        }
    }

    /// Storage holding the `count` values at `source`, moved (`source` is
    /// left uninitialised). O(count), one allocation.
    static func make(movingFrom source: UnsafeMutablePointer<any _PersistableProperty>, count: Int) -> UnmanagedValues {
        let buffer = create(minimumCapacity: count) { _ in Header(mutex: pthread_mutex_t(), count: count, added: nil) }
        // `create` allocates an instance of the class it is called on.
        let storage = unsafeDowncast(buffer, to: UnmanagedValues.self)
        storage.withUnsafeMutablePointers { header, values in
            #if canImport(Darwin)
            let status = pthread_mutex_init(mutex(header), nil)
            precondition(status == 0, "Chronicle: pthread_mutex_init failed (\(status))")
            #endif
            // On glibc and musl the header's zeroed mutex already is a
            // default one (`PTHREAD_MUTEX_INITIALIZER` is all zeros), and
            // destroying it frees nothing: skipping both saves two calls
            // per unmanaged object made.
            values.moveInitialize(from: source, count: count)
        }
        return storage
    }

    /// The mutex, at its fixed address inside the header.
    @inline(__always)
    private static func mutex(_ header: UnsafeMutablePointer<Header>) -> UnsafeMutablePointer<pthread_mutex_t> {
        UnsafeMutableRawPointer(header).assumingMemoryBound(to: pthread_mutex_t.self)
    }

    deinit {
        // `ManagedBuffer` destroys the header; the tail elements are ours.
        withUnsafeMutablePointers { header, values in
            #if canImport(Darwin)
            pthread_mutex_destroy(Self.mutex(header))
            #endif
            _ = values.deinitialize(count: header.pointee.count)
        }
    }

    /// Runs `body` with exclusive access to the values, one per ordinal.
    /// `body` must not keep the buffer, nor reach this object's lock again
    /// (the mutex is not recursive).
    @inline(__always)
    func withLock<R>(_ body: (UnsafeMutableBufferPointer<any _PersistableProperty>) throws -> R) rethrows -> R {
        try withLockedHeader { _, values in try body(values) }
    }

    /// Runs `body` with exclusive access to the location `add` put the
    /// instance at (`nil` while unmanaged) and to the values; the same
    /// rules as ``withLock(_:)``.
    @inline(__always)
    func withLockedHeader<R>(
        _ body: (_ added: inout AddedLocation?, UnsafeMutableBufferPointer<any _PersistableProperty>) throws -> R
    ) rethrows -> R {
        try withUnsafeMutablePointers { header, values in
            let mutex = Self.mutex(header)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&header.pointee.added, UnsafeMutableBufferPointer(start: values, count: header.pointee.count))
        }
    }

    /// Where `add` put the instance, or `nil` while it is unmanaged.
    var added: AddedLocation? {
        withLockedHeader { added, _ in added }
    }

    /// Makes the instance stand for object `key` of `table`, unless `add`
    /// already did.
    func bindIfUnmanaged(table: TableBinding, key: ObjectKey) {
        withLockedHeader { added, _ in AddedLocation.bind(&added, table: table, key: key, version: 0) }
    }

    /// The value at `ordinal`, which `add` keeps: what another thread
    /// reads while the write that adds the instance is in progress.
    func keptValue(ordinal: Int) -> any _PersistableProperty {
        withLockedHeader { _, values in values[ordinal] }
    }

    /// The value at `ordinal` while the instance is unmanaged; `nil` once
    /// `add` made it managed.
    @inline(__always)
    func valueIfUnmanaged(ordinal: Int) -> (any _PersistableProperty)? {
        withLockedHeader { added, values in added == nil ? values[ordinal] : nil }
    }

    /// Sets the value at `ordinal` if the instance is still unmanaged;
    /// returns whether it was.
    @inline(__always)
    func setIfUnmanaged<V: _PersistableProperty>(ordinal: Int, _ value: V) -> Bool {
        withLockedHeader { added, values in
            guard added == nil else { return false }
            values[ordinal] = value
            return true
        }
    }
}
