import Foundation

/// Where new identifiers come from: `UUID()` and ``ObjectId/generate()`` by
/// default, or a generator a test installs for reproducible journals.
///
/// ```swift
/// var next: UInt8 = 0
/// IdentifierGeneration.withUUIDGenerator({ … }) {
///     let dog = Dog()   // dog._id comes from the generator
/// }
/// ```
///
/// Generators are task-local: they apply to code run by the task that
/// installed them, so parallel tests do not see each other's.
public enum IdentifierGeneration {
    struct Generator: Sendable { var make: (@Sendable () -> UUID)? }
    @TaskLocal static var uuid = Generator(make: nil)

    /// A new UUID from the installed generator, or `UUID()`.
    static func makeUUID() -> UUID { uuid.make?() ?? UUID() }

    /// Runs `body` with `generator` supplying the default values of
    /// `@Persisted` `UUID` properties created by the current task (and the
    /// file identifier of a journal it creates).
    public static func withUUIDGenerator<R>(_ generator: @escaping @Sendable () -> UUID, _ body: () throws -> R) rethrows -> R {
        try $uuid.withValue(Generator(make: generator), operation: body)
    }

    /// Runs `body` with `generator` supplying ``ObjectId/generate()`` for the current task.
    public static func withObjectIdGenerator<R>(_ generator: @escaping @Sendable () -> ObjectId, _ body: () throws -> R) rethrows -> R {
        try ObjectId.withGenerator(generator, body)
    }
}
