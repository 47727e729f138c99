import Foundation

/// Where new identifiers come from: random (version 4) UUIDs and
/// ``ObjectId/generate()`` by default, or a generator a test installs for
/// reproducible journals.
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

    /// A new UUID from the installed generator, or a random one.
    static func makeUUID() -> UUID { uuid.make?() ?? randomUUID() }

    /// A random (version 4) UUID, as `UUID()` makes, from the standard
    /// library's cryptographically secure generator.
    ///
    /// Not `UUID()`: on Linux, Foundation's opens, reads and closes
    /// `/dev/urandom` for each one, where the generator asks the kernel
    /// directly (`getrandom`; figures in the Performance article, Commit).
    static func randomUUID() -> UUID {
        var generator = SystemRandomNumberGenerator()
        var words = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &words) { raw in
            raw[6] = raw[6] & 0x0F | 0x40   // version 4: random
            raw[8] = raw[8] & 0x3F | 0x80   // the RFC 4122 variant
            return UUID(uuid: raw.loadUnaligned(as: uuid_t.self))
        }
    }

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
