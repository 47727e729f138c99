import Foundation

/// Where model date defaults come from: `Date()`, or a clock a test
/// installs so that its journal does not depend on when it runs.
///
/// A default of `Date()` stamps every new object with the wall-clock time,
/// so two runs of a test write different journals. Write the default with
/// ``now()`` instead:
///
/// ```swift
/// final class Entry: Object {
///     @Persisted var bookedAt = ModelClock.now()   // Date() in the app
/// }
/// ```
///
/// In the app it is `Date()`. ChronicleTesting's fresh-store trait installs
/// the test's clock, so in a test every default is the test clock's time.
/// Like the identifier generators, the clock is task-local: it applies to
/// the task that installed it and the tasks it creates (not detached ones).
public enum ModelClock {
    @TaskLocal static var installed: (@Sendable () -> Date)?

    /// The installed clock's time, or `Date()`.
    public static func now() -> Date { installed?() ?? Date() }

    /// Runs `body` with `clock` answering ``now()`` for the current task.
    public static func withClock<R>(_ clock: @escaping @Sendable () -> Date, _ body: () throws -> R) rethrows -> R {
        try $installed.withValue(clock, operation: body)
    }

    /// Runs `body` with `clock` answering ``now()`` for the current task and
    /// the tasks it creates.
    public static func withClock<R>(_ clock: @escaping @Sendable () -> Date, isolation: isolated (any Actor)? = #isolation,
                                    _ body: () async throws -> R) async rethrows -> R {
        try await $installed.withValue(clock, operation: body)
    }
}
