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
/// convoy): writers that do not sync commit markedly faster without
/// hand-over (see the "Performance" article).
///
/// No waiter starves: the oldest is always the one woken, a waiter that
/// loses keeps its place, and one that has waited longer than
/// ``State/handOverAfter`` is handed the lock at the next release, as
/// before. (Handing over sooner, after two losses or a much shorter wait,
/// gave part of the convoy back: with more writers than cores a woken
/// waiter often loses and waits that long. With ``State/handOverAfter``,
/// writers commit as fast as with no hand-over at all.)
final class WriterLock: Sendable {
    /// How a waiter is woken.
    enum Wake {
        case blocking(DispatchSemaphore)
        /// Resumed with whether the lock was handed over (`false`: woken
        /// only, it tries again).
        case suspended(CheckedContinuation<Bool, Never>)
    }

    /// A class, not a struct: a `Waiter?` holding a `CheckedContinuation`
    /// (a type of another library, its layout unknown here) was copied and
    /// destroyed through the runtime's generic witnesses on every release,
    /// waiters or not — about 300 instructions a commit.
    final class Waiter: Sendable {
        let wake: Wake
        /// Whether a release hands this waiter the lock instead of only
        /// waking it.
        let isOwed: Bool

        init(wake: Wake, isOwed: Bool) { (self.wake, self.isOwed) = (wake, isOwed) }
    }

    /// Whether a writer holds the lock, and who waits, oldest first
    /// (`waiters[head...]`: the array is cleared once drained, not shifted).
    struct State {
        /// How long a waiter may wait, woken and losing the lock to
        /// running writers, before a release hands it the lock.
        static let handOverAfter = Duration.milliseconds(10)

        private(set) var held = false
        private var waiters: [Waiter] = []
        private var head = 0

        var waiterCount: Int { waiters.count - head }

        /// Takes the lock if it is free.
        mutating func tryAcquire() -> Bool {
            if held { return false }
            held = true
            return true
        }

        /// Queues a waiter: last if it is new (`since` is `nil`),
        /// otherwise — woken, it lost the lock to a running writer — first,
        /// keeping its place. Returns whether a release will hand it the
        /// lock: once it has waited `handOverAfter` since it first queued.
        mutating func queue(_ wake: Wake, since: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> Bool {
            guard let since else {
                waiters.append(Waiter(wake: wake, isOwed: false))
                return false
            }
            let waiter = Waiter(wake: wake, isOwed: now - since >= Self.handOverAfter)
            if head > 0 {
                head -= 1
                waiters[head] = waiter
            } else {
                waiters.insert(waiter, at: 0)
            }
            return waiter.isOwed
        }

        /// Releases the lock: returns the waiter to wake, if any, which
        /// holds the lock already if it is owed.
        mutating func release() -> Waiter? {
            guard head < waiters.count else {
                held = false
                // Drained (`head == waiters.count`): cleared, if ever used.
                if head > 0 {
                    waiters.removeAll(keepingCapacity: true)
                    head = 0
                }
                return nil
            }
            let waiter = waiters[head]
            head += 1
            if !waiter.isOwed { held = false }
            return waiter
        }
    }

    private let state = Locked<State>(State())

    func lock() {
        if state.withLock({ $0.tryAcquire() }) { return }
        // One semaphore for every turn in the queue: each wait consumes the
        // one signal that woke it.
        let semaphore = DispatchSemaphore(value: 0)
        // When this caller first queued.
        let since = ContinuousClock.now
        var queuedBefore = false
        while true {
            let queuedSince = queuedBefore ? since : nil
            let queued: Bool? = state.withLock { state in
                if state.tryAcquire() { return nil }
                return state.queue(.blocking(semaphore), since: queuedSince, now: .now)
            }
            guard let owed = queued else { return }
            semaphore.wait()
            if owed { return }
            queuedBefore = true
        }
    }

    func lock() async {
        var since: ContinuousClock.Instant?
        while true {
            if state.withLock({ $0.tryAcquire() }) { return }
            let queuedSince = since
            let now = ContinuousClock.now
            let acquired = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Tried again under the lock: a release since the try above
                // would otherwise wake nobody.
                let acquired = state.withLock { state in
                    if state.tryAcquire() { return true }
                    _ = state.queue(.suspended(continuation), since: queuedSince, now: now)
                    return false
                }
                if acquired { continuation.resume(returning: true) }
            }
            if acquired { return }
            if since == nil { since = now }
        }
    }

    /// Takes the lock if it is free, without waiting.
    /// - Returns: whether it was taken.
    func tryLock() -> Bool {
        state.withLock { $0.tryAcquire() }
    }

    func unlock() {
        guard let waiter = state.withLock({ $0.release() }) else { return }
        switch waiter.wake {
        case .blocking(let semaphore): semaphore.signal()
        case .suspended(let continuation): continuation.resume(returning: waiter.isOwed)
        }
    }
}

extension WriterLock {
    /// How many callers wait for the lock (for tests).
    var waiterCount: Int {
        state.withLock { $0.waiterCount }
    }
}
