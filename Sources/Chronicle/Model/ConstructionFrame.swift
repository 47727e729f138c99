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
    // No dynamic exclusivity checks: a frame belongs to one thread, and no
    // access to its properties spans a call that can reach the frame again.
    // The checks cost about 1,000 instructions per object made (callgrind,
    // W1, 2026-11-22).
    /// The values registered since the last take, `pendingCount` of them
    /// in a buffer of `pendingCapacity`: kept by hand, not in an array, so
    /// that ``take()`` can move them into the object's storage and keep the
    /// buffer for the next object (an array cannot give up its elements
    /// without destroying them).
    @exclusivity(unchecked) private var pending: UnsafeMutablePointer<any _PersistableProperty>
    @exclusivity(unchecked) private var pendingCount = 0
    @exclusivity(unchecked) private var pendingCapacity = 8
    @exclusivity(unchecked) var options: ContiguousArray<PersistedOptions> = []
    /// The options of the last internal instance taken (see
    /// ``makeInternal(_:)``), for schema discovery.
    @exclusivity(unchecked) var lastTakenOptions: ContiguousArray<PersistedOptions> = []
    /// While a managed handle is being made (``makeHandle(_:binding:)``):
    /// its binding and type. Its wrappers then only count their ordinals —
    /// a handle reads the store, never initial values — and its
    /// `ObjectBase.init` takes the binding instead of the values.
    @exclusivity(unchecked) var handleBinding: ObjectBinding?
    @exclusivity(unchecked) var handleType: ObjectIdentifier?
    @exclusivity(unchecked) var handleOrdinals = 0
    /// Whether Chronicle itself is making the instance (see ``makeInternal(_:)``).
    @exclusivity(unchecked) var isInternal = false

    private init() {
        pending = .allocate(capacity: pendingCapacity)
    }

    deinit {
        pending.deinitialize(count: pendingCount)
        pending.deallocate()
    }

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
    ///
    /// The value is an autoclosure, and the method generic, so that a
    /// managed handle's wrappers (which only count) neither make a default
    /// value (an empty `List` is an allocation) nor box one in an existential.
    static func register<Value: _PersistableProperty>(_ value: @autoclosure () -> Value, options: PersistedOptions) -> Int {
        // Borrowed, not retained: the thread's key holds the frame for the
        // thread's life. A retain and release here cost about 40
        // instructions a property (callgrind, W1).
        withCurrent { frame in
            if frame.handleBinding != nil {
                defer { frame.handleOrdinals += 1 }
                return frame.handleOrdinals
            }
            if frame.pendingCount == frame.pendingCapacity { frame.growPending() }
            (frame.pending + frame.pendingCount).initialize(to: value())
            frame.pendingCount += 1
            // Only schema discovery reads the options, and it makes its
            // prototype with `makeInternal`: recording them for every
            // object (and clearing them on each take) cost about 400
            // instructions an object of four properties (callgrind, W1).
            if frame.isInternal { frame.options.append(options) }
            return frame.pendingCount - 1
        }
    }

    /// Doubles the pending buffer. O(count); rare: the buffer is kept.
    private func growPending() {
        let larger = UnsafeMutablePointer<any _PersistableProperty>.allocate(capacity: pendingCapacity * 2)
        larger.moveInitialize(from: pending, count: pendingCount)
        pending.deallocate()
        pending = larger
        pendingCapacity *= 2
    }

    /// Calls `body` with this thread's frame, without retaining it.
    @inline(__always)
    private static func withCurrent<R>(_ body: (ConstructionFrame) -> R) -> R {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<ConstructionFrame>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
        }
        return body(current)
    }

    /// Makes a managed handle of `type` bound by `binding`, skipping the
    /// work an unmanaged object needs (collecting each wrapper's initial
    /// value into an array of existentials behind a new lock): that work
    /// was most of the cost of `object(ofType:forPrimaryKey:)` and of
    /// iterating a `Results` (measured with callgrind: 6,260 instructions
    /// of a 4-property object's init, 2026-11-22).
    static func makeHandle<T: ObjectBase>(_ type: T.Type, binding: ObjectBinding) -> T {
        let frame = current
        frame.handleBinding = binding
        frame.handleType = ObjectIdentifier(type)
        frame.handleOrdinals = 0
        let object = type.init()
        frame.handleBinding = nil
        frame.handleType = nil
        return object
    }

    /// The binding of the handle being made, if `type` is its type; clears it.
    static func takeHandleBinding(for type: ObjectBase.Type) -> ObjectBinding? {
        withCurrent { frame in
            guard let binding = frame.handleBinding, frame.handleType == ObjectIdentifier(type) else { return nil }
            frame.handleBinding = nil
            frame.handleType = nil
            frame.handleOrdinals = 0
            return binding
        }
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

    /// Whether the instance being initialised on this thread is Chronicle's
    /// own: a managed handle (``makeHandle(_:binding:)``) or an instance from
    /// ``makeInternal(_:)``.
    static var isMakingInternalInstance: Bool {
        let frame = current
        return frame.isInternal || frame.handleBinding != nil
    }

    /// Takes every value registered since the last take, moved into new
    /// storage for the object; their options become ``lastTakenOptions``.
    /// O(values), one allocation.
    static func take() -> UnmanagedValues {
        withCurrent { frame in
            let values = UnmanagedValues.make(movingFrom: frame.pending, count: frame.pendingCount)
            frame.pendingCount = 0
            // Swapped, not copied: the options buffer the frame keeps filling is
            // then the previous object's, unshared, and clearing it allocates
            // nothing. Only an internal instance recorded options (see
            // `register`).
            if frame.isInternal {
                swap(&frame.lastTakenOptions, &frame.options)
                frame.options.removeAll(keepingCapacity: true)
            }
            return values
        }
    }
}

/// The options a `@Persisted` declaration was written with.
struct PersistedOptions: Sendable, Hashable {
    var isPrimaryKey = false
    var isIndexed = false
    var originProperty: String?
}
