#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Collects the initial values of `@Persisted` wrappers while an object is
/// being initialised, so that the object can take them without reflection.
///
/// Swift runs a class's property initialisers before the base class's
/// `init`, so every `@Persisted` wrapper of an instance is built before
/// ``ObjectBase``'s initialiser runs. Each wrapper appends its initial value
/// here and remembers its position (its *ordinal*); `ObjectBase.init` then
/// takes them all. The frame is per thread because initialisation is
/// synchronous: no other code can run on the thread in between.
final class ConstructionFrame {
    var pending: ContiguousArray<any _PersistableProperty> = []
    var options: ContiguousArray<PersistedOptions> = []
    /// The options of the last object taken, for schema discovery.
    var lastTakenOptions: ContiguousArray<PersistedOptions> = []
    /// Whether Chronicle itself is making the instance (see ``makeInternal(_:)``).
    var isInternal = false

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<ConstructionFrame>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<ConstructionFrame>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(status == 0, "Chronicle could not create its thread-local construction frame (pthread_key_create: \(status))")
        return key
    }()

    /// This thread's frame.
    static var current: ConstructionFrame {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ConstructionFrame>.fromOpaque(pointer).takeUnretainedValue()
        }
        let frame = ConstructionFrame()
        pthread_setspecific(key, Unmanaged.passRetained(frame).toOpaque())
        return frame
    }

    /// Records a wrapper's initial value; returns its ordinal.
    static func register(_ value: any _PersistableProperty, options: PersistedOptions) -> Int {
        let frame = current
        frame.pending.append(value)
        frame.options.append(options)
        return frame.pending.count - 1
    }

    /// An instance Chronicle makes for itself — a managed handle, a schema
    /// prototype, a key-path recorder — whose `@Persisted` initial values are
    /// never read. Their `UUID` and ``ObjectId`` defaults are zero instead of
    /// drawing from the task's identifier generators, so reading objects
    /// never changes which identifiers a seeded test gets.
    static func makeInternal<T: ObjectBase>(_ type: T.Type) -> T {
        let frame = current
        let outer = frame.isInternal
        frame.isInternal = true
        defer { frame.isInternal = outer }
        return type.init()
    }

    /// Whether the instance being initialised on this thread is Chronicle's own.
    static var isMakingInternalInstance: Bool { current.isInternal }

    /// Takes every value registered since the last take.
    static func take() -> (values: ContiguousArray<any _PersistableProperty>, options: ContiguousArray<PersistedOptions>) {
        let frame = current
        let taken = (frame.pending, frame.options)
        frame.lastTakenOptions = frame.options
        frame.pending = []
        frame.options = []
        return taken
    }
}

/// The options a `@Persisted` declaration was written with.
struct PersistedOptions: Sendable, Hashable {
    var isPrimaryKey = false
    var isIndexed = false
    var originProperty: String?
}
