#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The `@Persisted` values of an unmanaged object and the mutex guarding
/// them, in one allocation: the mutex in the header, the values as tail
/// elements.
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
    }

    /// Storage holding the `count` values at `source`, moved (`source` is
    /// left uninitialised). O(count), one allocation.
    static func make(movingFrom source: UnsafeMutablePointer<any _PersistableProperty>, count: Int) -> UnmanagedValues {
        let buffer = create(minimumCapacity: count) { _ in Header(mutex: pthread_mutex_t(), count: count) }
        // `create` allocates an instance of the class it is called on.
        let storage = unsafeDowncast(buffer, to: UnmanagedValues.self)
        storage.withUnsafeMutablePointers { header, values in
            let status = pthread_mutex_init(mutex(header), nil)
            precondition(status == 0, "Chronicle: pthread_mutex_init failed (\(status))")
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
            pthread_mutex_destroy(Self.mutex(header))
            _ = values.deinitialize(count: header.pointee.count)
        }
    }

    /// Runs `body` with exclusive access to the values, one per ordinal.
    /// `body` must not keep the buffer, nor reach this object's lock again
    /// (the mutex is not recursive).
    @inline(__always)
    func withLock<R>(_ body: (UnsafeMutableBufferPointer<any _PersistableProperty>) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { header, values in
            let mutex = Self.mutex(header)
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(UnsafeMutableBufferPointer(start: values, count: header.pointee.count))
        }
    }
}
