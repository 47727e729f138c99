import Foundation

/// A value guarded by an `NSLock` (a `pthread_mutex`, which ThreadSanitizer
/// understands — unlike `Synchronization.Mutex` on Linux).
///
/// `@unchecked Sendable`: `value` is only touched inside ``withLock(_:)``.
final class Lock<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with exclusive access to the value.
    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
