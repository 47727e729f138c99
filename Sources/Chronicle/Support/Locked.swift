#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a lock, for state shared between threads.
///
/// Why not `Synchronization.Mutex`: on Linux, `Mutex` is built on raw futex
/// calls that ThreadSanitizer cannot see, so every access it guards is
/// reported as a race (checked with Swift 6.3.1: two threads appending to a
/// `Locked<[Int]>` under `-sanitize=thread`). A `pthread_mutex` is what
/// ThreadSanitizer understands, so `swift test --sanitize=thread` reports
/// only real races. It is used directly rather than through `NSLock`, which
/// wraps the same mutex in two more allocations and a method call. (An
/// unmanaged object's values, locked about six times for each object a
/// write creates, use a `WordLock` instead: one word in their own
/// allocation, and no call on the way in or out.)
///
/// Not for `Void`: guard a real value (ThreadSanitizer misreports the empty
/// access of a `Locked<Void>` as a race).
///
/// `@unchecked Sendable`: `value` is read and written only inside
/// ``withLock(_:)``, while `mutex` is held, and `Value` is itself `Sendable`.
final class Locked<Value: Sendable>: @unchecked Sendable {
    /// Allocated apart from the object: a mutex must not move, and a
    /// stored property's address is not stable in Swift.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // No dynamic exclusivity checks: `value` is only accessed while `mutex`
    // is held, which already makes every access exclusive.
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "Chronicle: pthread_mutex_init failed (\(status))")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
