import Foundation

/// Threads that each run one long job at a time and are kept, parked, for
/// the next job once theirs returns, instead of ending.
///
/// A store's follower (``AppendFollower``) runs on a thread of its own for
/// as long as the store lives. Starting and ending that thread was about a
/// third of opening a store from its checkpoint file and letting it go
/// (see the "Performance" article, Open); a process that opens stores one
/// after another (tools, tests, an app reopening after a migration) now
/// reuses the thread the last store's follower ran on.
///
/// Semantics:
/// - **Start.** ``run(_:)`` hands the job to a parked thread if there is
///   one, and otherwise starts a thread (named `name`, with `stackSize`).
///   It never waits for a job to end.
/// - **Release.** A job's closure, and everything it captured, is let go
///   when the job returns, before its thread parks.
/// - **Bound.** At most `maximumParked` threads stay parked; a thread whose
///   job returns when that many already are ends.
/// - **Thread state.** A job inherits what earlier jobs on its thread left
///   (its name, its scheduling priority): give one kind of job its own
///   `KeptThreads`.
///
/// `@unchecked Sendable`: `jobs`, `parked` and `started` are read and
/// written only holding `condition`.
final class KeptThreads: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var parked = 0
    private var started = 0
    private let name: String
    private let stackSize: Int
    private let maximumParked: Int

    init(name: String, stackSize: Int, maximumParked: Int) {
        self.name = name
        self.stackSize = stackSize
        self.maximumParked = maximumParked
    }

    /// How many threads this has started (for tests).
    var threadsStarted: Int {
        condition.lock()
        defer { condition.unlock() }
        return started
    }

    /// How many threads are parked, waiting for a job (for tests).
    var threadsParked: Int {
        condition.lock()
        defer { condition.unlock() }
        return parked
    }

    /// Runs `job` on a parked thread, or on a new one if none is parked.
    /// - Complexity: O(1); a thread's start when none is parked.
    func run(_ job: @escaping Job) {
        condition.lock()
        if parked > jobs.count {
            jobs.append(job)
            condition.signal()
            condition.unlock()
            return
        }
        started += 1
        condition.unlock()
        let first = FirstJob(job)
        let thread = Thread { [self] in loop(first: first) }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// A new thread's first job, which the thread takes out: the
    /// `Thread`'s closure keeps what it captured for the thread's life.
    ///
    /// `@unchecked Sendable`: written before the thread starts, and taken
    /// once, on that thread.
    private final class FirstJob: @unchecked Sendable {
        var job: Job?
        init(_ job: @escaping Job) { self.job = job }
    }

    private func loop(first: FirstJob) {
        var next = first.job.take()
        while true {
            Self.perform(&next)
            condition.lock()
            if parked >= maximumParked {
                condition.unlock()
                return
            }
            parked += 1
            while jobs.isEmpty { condition.wait() }
            parked -= 1
            next = jobs.removeFirst()
            condition.unlock()
        }
    }

    /// Takes the job out of `next` and runs it: the closure, and what it
    /// captured, goes when this returns, before the thread parks (a
    /// binding in the loop could keep it until the next job came).
    private static func perform(_ next: inout Job?) {
        guard let job = next.take() else { return }
        job()
    }
}
