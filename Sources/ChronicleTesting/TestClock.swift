import Foundation
import Testing

/// A clock that moves only when the test moves it: a Swift `Clock`, so an
/// app's `Task.sleep(for:clock:)`, debounces and timeouts run on it, and the
/// source of a store's commit timestamps, so both follow one time line.
///
/// ```swift
/// let clock = TestClock()
/// let store = try Store(configuration: .inMemory(clock: clock.timestamp))
/// try store.write { … }            // timestamped 2025-01-01T00:00:00Z
/// try store.write { … }            // timestamped 2025-01-01T00:00:01Z
///
/// let search = SearchModel(store: store, clock: clock)   // debounces on `clock`
/// search.query = "rex"
/// await clock.advance(by: .milliseconds(300))            // the debounce fires now
/// ```
///
/// Time starts at ``start`` and moves forward in two ways: ``advance(by:)``
/// (and ``advance(to:)``, ``run()``), which resume the sleeps that come due
/// in deadline order; and ``timestamp()``, which a store calls for each
/// commit and which moves the clock on by ``step`` — a commit takes that
/// long, so commits have distinct, increasing timestamps. Reading ``now``
/// or ``date`` does not move it.
///
/// The fresh-store trait and ``withFreshStore(objectTypes:seed:clock:_:)-(_,_,_,(Store)throws->R)``
/// make one for each test (``TestStore/clock``); they also make it the
/// source of ``Chronicle/ModelClock/now()``, for models whose date defaults
/// must not depend on when the test runs.
///
/// A clock is `Sendable`; concurrent commits each get a distinct time.
public final class TestClock: Clock, Sendable {
    /// A point on a test clock's time line: how long after the clock's ``TestClock/start``.
    public struct Instant: InstantProtocol, CustomStringConvertible {
        /// The time since the clock's start.
        public var offset: Swift.Duration

        /// The instant `offset` after a clock's start.
        public init(offset: Swift.Duration) { self.offset = offset }

        /// The instant `duration` later.
        public func advanced(by duration: Swift.Duration) -> Instant { Instant(offset: offset + duration) }

        /// The time from this instant to `other`.
        public func duration(to other: Instant) -> Swift.Duration { other.offset - offset }

        /// Whether `lhs` comes first.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }

        /// `start + 1.5 seconds`.
        public var description: String { "start + \(offset)" }
    }

    /// 2025-01-01T00:00:00Z, the default start.
    public static let defaultStart = Date(timeIntervalSince1970: 1_735_689_600)

    /// The date of the clock's first instant.
    public let start: Date
    /// How far each ``timestamp()`` moves the clock on.
    public let step: Swift.Duration

    private struct Sleeper {
        let id: Int
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        /// Sleeps whose task was cancelled before they registered.
        var cancelled: Set<Int> = []
        var nextID = 0

        /// Moves time to `instant` (never back) and removes the sleepers due then.
        mutating func move(to instant: Instant) -> [Sleeper] {
            now = max(now, instant)
            let due = sleepers.filter { $0.deadline <= now }
            sleepers.removeAll { $0.deadline <= now }
            return due
        }
    }

    private let state = Lock(State())

    /// A clock that starts at `start` and moves `step` per ``timestamp()``.
    public init(start: Date = TestClock.defaultStart, step: Swift.Duration = .seconds(1)) {
        self.start = start
        self.step = step
    }

    /// The current instant.
    public var now: Instant { state.withLock { $0.now } }

    /// The clock does not round: sleeps end exactly at their deadlines.
    public var minimumResolution: Swift.Duration { .zero }

    /// The current time as a date: ``start`` plus ``now``.
    public var date: Date { date(at: now) }

    /// The date of `instant`.
    public func date(at instant: Instant) -> Date {
        let (seconds, attoseconds) = instant.offset.components
        return start.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }

    /// How many sleeps are waiting for the clock to move.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// A commit timestamp: the current date; the clock then moves on by
    /// ``step``, resuming the sleeps that come due. Pass it as a store's clock:
    /// `.inMemory(clock: clock.timestamp)`.
    @Sendable public func timestamp() -> Date {
        let (now, due) = state.withLock { state in
            let now = state.now
            return (now, state.move(to: now.advanced(by: step)))
        }
        for sleeper in due { sleeper.continuation.resume() }
        return date(at: now)
    }

    /// Suspends until the test moves the clock to `deadline` (at once if it
    /// is there already).
    ///
    /// - Throws: `CancellationError` when the sleeping task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Swift.Duration? = nil) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        defer { _ = state.withLock { $0.cancelled.remove(id) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> Result<Void, any Error>? in
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= state.now { return .success(()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                if let index = state.sleepers.firstIndex(where: { $0.id == id }) { return state.sleepers.remove(at: index) }
                state.cancelled.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock forward by `duration`, resuming each sleep that comes
    /// due on the way, in deadline order, and letting the resumed tasks run
    /// (and sleep again) before moving on.
    ///
    /// The clock first lets other tasks run, so a task the test just started
    /// is likely to reach its sleep before time moves; when it must, wait
    /// for it with ``waitForSleepers(_:timeout:sourceLocation:)``.
    public func advance(by duration: Swift.Duration) async {
        await advance(to: now.advanced(by: duration))
    }

    /// Moves the clock forward to `deadline` (never back), as ``advance(by:)``.
    public func advance(to deadline: Instant) async {
        await Self.letOtherTasksRun()
        while true {
            let due = state.withLock { state -> [Sleeper]? in
                guard let next = state.sleepers.map(\.deadline).filter({ $0 <= deadline }).min() else {
                    state.now = max(state.now, deadline)
                    return nil
                }
                return state.move(to: next)
            }
            guard let due else { return }
            for sleeper in due { sleeper.continuation.resume() }
            await Self.letOtherTasksRun()
        }
    }

    /// Moves the clock forward until no sleep is waiting: every pending
    /// debounce and timeout fires, and so do the sleeps they start.
    ///
    /// - Parameter limit: How far at most to move, for code that sleeps
    ///   forever in a loop.
    public func run(limit: Swift.Duration = .seconds(3600)) async {
        let end = now.advanced(by: limit)
        await Self.letOtherTasksRun()
        while let next = state.withLock({ $0.sleepers.map(\.deadline).min() }), next <= end {
            await advance(to: next)
        }
    }

    /// Waits, in real time, until at least `count` sleeps wait on the clock
    /// — for code under test that starts its sleep in a task of its own, so
    /// the test moves the clock only once the task sleeps:
    ///
    /// ```swift
    /// search.type("rex")                 // starts a debounce task
    /// await clock.waitForSleepers()
    /// await clock.advance(by: .milliseconds(300))
    /// ```
    ///
    /// Records an issue at the caller after `timeout` ("Timed out after 60.0
    /// seconds waiting for 1 sleep on the test clock; 0 are waiting"). The
    /// default is generous on purpose: in a parallel test run of hundreds
    /// of tests on a small machine, the task that is to sleep, and this
    /// wait itself, may each wait seconds for a thread (a 5-second default
    /// failed a run whose every test passed alone).
    public func waitForSleepers(_ count: Int = 1, timeout: Swift.Duration = .seconds(60),
                                sourceLocation: SourceLocation = #_sourceLocation) async {
        let deadline = ContinuousClock.now + timeout
        while sleeperCount < count {
            guard ContinuousClock.now < deadline, (try? await Task.sleep(for: .milliseconds(1))) != nil else {
                let waiting = sleeperCount
                Issue.record(Comment(rawValue: "Timed out after \(timeout) waiting for \(count) sleep\(count == 1 ? "" : "s") "
                                         + "on the test clock; \(waiting) \(waiting == 1 ? "is" : "are") waiting"),
                             sourceLocation: sourceLocation)
                return
            }
        }
    }

    /// Gives the tasks that are ready a chance to run: a task resumed by the
    /// clock runs on the global executor, and each yield puts the test
    /// behind the tasks waiting there at its priority. (No wait covers "all
    /// of them"; ``waitForSleepers(_:timeout:sourceLocation:)`` waits for a
    /// known one.)
    private static func letOtherTasksRun() async {
        for _ in 0..<20 { await Task.yield() }
    }
}
