import Foundation

/// A value guarded by a lock, for state shared between threads.
///
/// Why not `Synchronization.Mutex`: on Linux, `Mutex` is built on raw futex
/// calls that ThreadSanitizer cannot see, so every access it guards is
/// reported as a race (checked with Swift 6.3.1: two threads appending to a
/// `Locked<[Int]>` under `-sanitize=thread`). `NSLock` is a `pthread_mutex`,
/// which ThreadSanitizer understands, so `swift test --sanitize=thread`
/// reports only real races. The cost is the same order (one uncontended
/// lock and unlock).
///
/// Not for `Void`: guard a real value (ThreadSanitizer misreports the empty
/// access of a `Locked<Void>` as a race).
///
/// `@unchecked Sendable`: `value` is read and written only inside
/// ``withLock(_:)``, while `lock` is held, and `Value` is itself `Sendable`.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    // No dynamic exclusivity checks: `value` is only accessed while `lock`
    // is held, which already makes every access exclusive.
    @exclusivity(unchecked) private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    func withLock<R, E: Error>(_ body: (inout Value) throws(E) -> R) throws(E) -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
