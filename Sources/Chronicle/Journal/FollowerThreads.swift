#if os(Linux)
import Foundation

/// Linux: the threads ``AppendFollower``s run on, kept a while after their
/// follower ends, so that a store opened after another one was dropped
/// does not start a thread of its own.
///
/// A follower lives as long as its store. A process that opens and drops
/// stores (a test suite, a command-line tool, an app reopening its store
/// after a migration) would otherwise create and end a thread at each open:
/// the `clone`, the stack's mapping, the new thread's first allocation (a
/// malloc arena of its own) and, at the drop, the thread's exit — a third of
/// the time of an open with a checkpoint file that reads one object.
///
/// **Semantics.**
/// - ``run(_:)`` hands the job to a parked thread if there is one, and
///   starts a thread otherwise; it never waits for the job, and never queues
///   one job behind another (a follower's job runs until its follower is
///   cancelled, so each needs a thread of its own).
/// - A thread whose job returned parks for ``keepAlive``: a job handed over
///   meanwhile wakes it, otherwise it ends.
/// - The threads run at the lowest priority, as followers always have: an
///   idle core still runs them at once, but an observer of the app's own
///   commit runs first.
/// - A job is released (and what it holds, the shared area's mapping)
///   before its thread parks.
///
/// `@unchecked Sendable`: `jobs`, `parked` and `threads` are read and written only
/// while `condition` is locked; jobs run with it released.
final class FollowerThreads: @unchecked Sendable {
    /// The pool every ``AppendFollower`` of the process uses.
    static let shared = FollowerThreads()

    /// How long a thread whose job ended waits for the next one.
    let keepAlive: Duration

    private let condition = NSCondition()
    /// Jobs handed over that no thread has taken yet.
    private var jobs: [@Sendable () -> Void] = []
    /// Threads parked, waiting for a job.
    private var parked = 0
    /// Threads started, for tests (parked or running a job).
    private var threads = 0

    init(keepAlive: Duration = .seconds(10)) {
        self.keepAlive = keepAlive
    }

    /// Runs `job` on a thread of the pool: a parked one, woken, or a new one.
    ///
    /// - Complexity: O(1) when a thread is parked (a lock and a wake-up).
    func run(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        // Each job not yet taken needs a parked thread of its own: two jobs
        // handed over before one parked thread wakes must not share it.
        let start = jobs.count > parked
        if start { threads += 1 } else { condition.signal() }
        condition.unlock()
        if start { startThread() }
    }

    /// Threads the pool has now, parked or running a job (for tests).
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Threads parked now, waiting for a job (for tests).
    var parkedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return parked
    }

    private func startThread() {
        let thread = Thread { [self] in
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19) // 0: this thread, on Linux
            while let job = nextJob() { job() }
        }
        thread.name = "Chronicle follower"
        thread.stackSize = 256 * 1024
        thread.start()
    }

    /// The next job, after waiting up to ``keepAlive`` for one; `nil` (and
    /// the thread no longer counted) when none came.
    private func nextJob() -> (@Sendable () -> Void)? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: Double(keepAlive / .nanoseconds(1)) / 1e9)
        while jobs.isEmpty {
            parked += 1
            let signalled = condition.wait(until: deadline)
            parked -= 1
            if !signalled && jobs.isEmpty {
                threads -= 1
                return nil
            }
        }
        return jobs.removeFirst()
    }
}
#endif
