import Dispatch
import Synchronization

/// A lock that both blocking and `async` callers can wait on: it serialises
/// the store's write transactions.
///
/// A blocking caller parks its thread on a semaphore; an `async` caller
/// suspends on a continuation and so holds no thread while it waits.
///
/// Release wakes the oldest waiter but does not hand it the lock: a writer
/// already running may take the lock first, and the woken waiter, if it
/// loses, waits again at the front of the queue. Handing the lock over
/// left it held by a thread that was not running yet, so with many
/// writers every commit also waited for a thread to be scheduled (a lock
/// convoy): eight threads committing without syncing took about 16 µs a
/// commit against 6 µs for one (the benchmark's W2b, 2026-11-23), and
/// durable commits had fewer to share each sync with.
///
/// Waiters are not starved by one another — the oldest is always the one
/// woken, and a waiter that loses keeps its place — but a caller that
/// arrives just as the lock is released can go ahead of them.
final class WriterLock: Sendable {
    private enum Waiter {
        case blocking(DispatchSemaphore)
        /// Resumed with `false` when woken: it tries again.
        case suspended(CheckedContinuation<Bool, Never>)
    }

    /// Whether a writer holds the lock, and who waits, oldest first
    /// (`waiters[head...]`: the array is cleared once drained, not shifted).
    private struct State {
        var held = false
        var waiters: [Waiter] = []
        var head = 0

        /// Takes the lock if it is free.
        mutating func tryAcquire() -> Bool {
            if held { return false }
            held = true
            return true
        }

        /// Queues `waiter`: last, or first for one that was woken and lost
        /// the lock to a running writer (it keeps its place).
        mutating func queue(_ waiter: Waiter, front: Bool) {
            if !front {
                waiters.append(waiter)
            } else if head > 0 {
                head -= 1
                waiters[head] = waiter
            } else {
                waiters.insert(waiter, at: 0)
            }
        }
    }

    private let state = Locked<State>(State())

    func lock() {
        var woken = false
        while true {
            let semaphore: DispatchSemaphore? = state.withLock { state in
                if state.tryAcquire() { return nil }
                let semaphore = DispatchSemaphore(value: 0)
                state.queue(.blocking(semaphore), front: woken)
                return semaphore
            }
            guard let semaphore else { return }
            semaphore.wait()
            woken = true
        }
    }

    func lock() async {
        var woken = false
        while true {
            if state.withLock({ $0.tryAcquire() }) { return }
            let front = woken
            let tookLock = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Tried again under the lock: a release since the try above
                // would otherwise wake nobody.
                let acquired = state.withLock { state in
                    if state.tryAcquire() { return true }
                    state.queue(.suspended(continuation), front: front)
                    return false
                }
                if acquired { continuation.resume(returning: true) }
            }
            if tookLock { return }
            woken = true
        }
    }

    func unlock() {
        let next: Waiter? = state.withLock { state in
            state.held = false
            guard state.head < state.waiters.count else {
                state.waiters.removeAll(keepingCapacity: true)
                state.head = 0
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            return waiter
        }
        switch next {
        case .blocking(let semaphore): semaphore.signal()
        case .suspended(let continuation): continuation.resume(returning: false)
        case nil: break
        }
    }
}

extension WriterLock {
    /// How many callers wait for the lock (for tests).
    var waiterCount: Int {
        state.withLock { $0.waiters.count - $0.head }
    }
}
