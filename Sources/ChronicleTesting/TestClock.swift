import Foundation

/// A clock for commit timestamps that starts at a fixed date and advances a
/// fixed step each time it is read, so a test's journal has the same
/// timestamps on every run.
///
/// Pass ``now()`` as a store's clock (the fresh-store trait and
/// ``withFreshStore(objectTypes:seed:clock:_:)-(_,_,_,(Store)throws->R)`` do):
///
/// ```swift
/// let clock = TestClock()
/// let store = try Store(configuration: .inMemory(clock: clock.now))
/// try store.write { … }   // timestamped 2025-01-01T00:00:00Z
/// try store.write { … }   // timestamped 2025-01-01T00:00:01Z
/// ```
///
/// A clock is `Sendable`; concurrent reads each get a distinct time.
public final class TestClock: Sendable {
    /// 2025-01-01T00:00:00Z, the default first time.
    public static let defaultStart = Date(timeIntervalSince1970: 1_735_689_600)

    /// The first time ``now()`` returns.
    public let start: Date
    /// How far each ``now()`` advances the clock.
    public let step: Duration
    private let next: Lock<Date>

    /// A clock whose first reading is `start`, each later one `step` after the last.
    public init(start: Date = TestClock.defaultStart, step: Duration = .seconds(1)) {
        self.start = start
        self.step = step
        next = Lock(start)
    }

    /// The current time; the clock then advances by ``step``.
    @Sendable public func now() -> Date {
        let interval = TestClock.seconds(step)
        return next.withLock { next in
            defer { next += interval }
            return next
        }
    }

    /// The time the next ``now()`` returns, without advancing.
    public var peek: Date { next.withLock { $0 } }

    /// Moves the clock forward by `duration`, as if that much time passed
    /// between two commits.
    public func advance(by duration: Duration) {
        let interval = TestClock.seconds(duration)
        next.withLock { $0 += interval }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
