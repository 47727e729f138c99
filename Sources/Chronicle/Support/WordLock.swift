#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import ChronicleSystem
import Synchronization

/// A mutex in one 32-bit word at a fixed address, for locks taken on every
/// object made: an unmanaged object's values (``UnmanagedValues``).
///
/// The word is 0 (free), 1 (held) or 2 (held, and someone may be waiting).
/// Taking a free lock is one compare-and-exchange, giving it back one
/// exchange: a `pthread_mutex_lock`/`unlock` pair is about 60 instructions
/// of calls and checks around the same two atomic operations, taken six
/// times for each object a write creates. A thread that finds the lock
/// held marks it 2 and sleeps on the word (a futex, on Linux; elsewhere it
/// yields and looks again); the holder's release wakes one sleeper when it
/// finds 2.
///
/// ThreadSanitizer sees it: the atomic operations are Swift's own, compiled
/// in this module (acquiring on the way in, releasing on the way out),
/// unlike `Synchronization.Mutex`'s (see ``Locked``).
///
/// Not recursive, not fair; meant to be held briefly (a spinning waiter
/// wastes its spins otherwise), though a waiter that outlasts its spins
/// sleeps rather than burns the core.
enum WordLock {
    /// The word's atomic view. The word must be 4-byte aligned and stay
    /// where it is while locked.
    @inline(__always)
    private static func atomic(_ word: UnsafeMutablePointer<UInt32>) -> UnsafeMutablePointer<Atomic<UInt32>> {
        UnsafeMutableRawPointer(word).assumingMemoryBound(to: Atomic<UInt32>.self)
    }

    /// Takes the lock, waiting while another thread holds it.
    /// - Complexity: O(1) when free.
    @inline(__always)
    static func lock(_ word: UnsafeMutablePointer<UInt32>) {
        let (taken, _) = atomic(word).pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring)
        if !taken { lockContended(word) }
    }

    /// Gives the lock back, waking one waiter if any may wait.
    @inline(__always)
    static func unlock(_ word: UnsafeMutablePointer<UInt32>) {
        if atomic(word).pointee.exchange(0, ordering: .releasing) == 2 { wakeOne(word) }
    }

    /// The slow path: marks the lock as waited for and sleeps until a
    /// release finds it free.
    @inline(never)
    private static func lockContended(_ word: UnsafeMutablePointer<UInt32>) {
        let state = atomic(word)
        // A few looks first: a holder holds it for a few instructions.
        for _ in 0..<64 {
            if state.pointee.load(ordering: .relaxed) == 0,
               state.pointee.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged { return }
        }
        // From here on the word says 2 whenever we may sleep, so that the
        // release wakes someone; taking it as 2 is harmless (one spare wake).
        while state.pointee.exchange(2, ordering: .acquiring) != 0 {
            #if os(Linux)
            // Sleeps only while the word is still 2; a bounded sleep, so a
            // wake that races the sleep costs a millisecond at most.
            _ = chronicle_futex_wait(word, 2, 1_000_000)
            #else
            sched_yield()
            #endif
        }
    }

    @inline(never)
    private static func wakeOne(_ word: UnsafeMutablePointer<UInt32>) {
        #if os(Linux)
        _ = chronicle_futex_wake(word, 1)
        #endif
    }
}
