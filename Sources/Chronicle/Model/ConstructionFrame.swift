#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import ChronicleSystem
import Synchronization

/// Collects the initial values of `@Persisted` wrappers while an object is
/// being initialised, so that the object can take them without reflection.
///
/// Swift runs a class's property initialisers before the base class's
/// `init`, so every `@Persisted` wrapper of an instance is built before
/// ``ObjectBase``'s initialiser runs. Each wrapper appends its initial value
/// here and remembers its position (its *ordinal*); `ObjectBase.init` then
/// takes them all. The frame is per thread because initialisation is
/// synchronous: no other code can run on the thread in between.
@usableFromInline
final class ConstructionFrame {
    // No dynamic exclusivity checks: a frame belongs to one thread, and no
    // access to its properties spans a call that can reach the frame again.
    // The checks were a large part of the cost of each object made.
    /// The values registered since the last take, `pendingCount` of them
    /// in buffers of `pendingCapacity`: kept by hand, not in arrays, so
    /// that ``take()`` can move them into the object's storage and keep the
    /// buffers for the next object (an array cannot give up its elements
    /// without destroying them). Each value has an entry (its type, and the
    /// value itself unless primitive), a 16-byte slot (a primitive value as
    /// a stored record holds it; see ``UnmanagedValues``) and its slot's kind.
    @exclusivity(unchecked) private var pending: UnsafeMutablePointer<UnmanagedValues.Entry>
    @exclusivity(unchecked) private var pendingSlots: UnsafeMutableRawPointer
    @exclusivity(unchecked) private var pendingTags: UnsafeMutablePointer<UInt64>
    @exclusivity(unchecked) private var pendingCount = 0
    @exclusivity(unchecked) private var pendingCapacity = 8
    @exclusivity(unchecked) var options: ContiguousArray<PersistedOptions> = []
    /// The options of the last internal instance taken (see
    /// ``makeInternal(_:)``), for schema discovery.
    @exclusivity(unchecked) var lastTakenOptions: ContiguousArray<PersistedOptions> = []
    /// While a managed handle is being made (``makeHandle(_:binding:)``,
    /// ``makeLiveHandle(_:store:table:key:snapshot:encoded:sequence:)``): its type.
    /// Its wrappers then only count their ordinals — a handle reads the
    /// store, never initial values — and its `ObjectBase.init` takes the
    /// handle's location instead of the values.
    @exclusivity(unchecked) var handleType: ObjectIdentifier?
    @exclusivity(unchecked) var handleOrdinals = 0
    /// The binding of the handle being made, for a frozen handle.
    @exclusivity(unchecked) var handleBinding: ObjectBinding?
    /// The location of the live handle being made (`handleTable` is `nil`
    /// for any other), which its `ObjectBase.init` moves into the instance
    /// (see `ObjectBase.liveStore`). The store is retained: the instance
    /// takes over the reference.
    @exclusivity(unchecked) var handleStore: Unmanaged<Store>?
    @exclusivity(unchecked) var handleTable: Unmanaged<TableBinding>?
    @exclusivity(unchecked) var handleKey = ObjectKey(0)
    @exclusivity(unchecked) var handleSequence: UInt64 = 0
    /// The live handle's record, initialised only while `handleTable` is
    /// set. Behind a pointer, so that it moves in and out without being
    /// retained and released: an optional stored property was retained on
    /// the way in and its previous value released, for every handle made.
    private let handleSnapshot = UnsafeMutablePointer<ObjectRecord?>.allocate(capacity: 1)
    /// The live handle's encoded block, instead of a record (retained:
    /// the instance takes over the reference).
    @exclusivity(unchecked) var handleEncoded: Unmanaged<EncodedBlock>?
    /// Whether Chronicle itself is making the instance (see ``makeInternal(_:)``).
    @exclusivity(unchecked) var isInternal = false

    private init() {
        pending = .allocate(capacity: pendingCapacity)
        pendingSlots = .allocate(byteCount: 16 * pendingCapacity, alignment: 16)
        pendingTags = .allocate(capacity: pendingCapacity)
    }

    deinit {
        for index in 0..<pendingCount { RecordStorage.deinitializeSlot(pendingSlots + 16 * index, tag: pendingTags[index]) }
        pending.deinitialize(count: pendingCount)
        pending.deallocate()
        pendingSlots.deallocate()
        pendingTags.deallocate()
        clearHandle()
        handleSnapshot.deallocate()
    }

    /// The thread-local key, plus one (`0`: not created yet). An atomic
    /// with a constant initial value, which Swift initialises statically:
    /// the lazily initialised `static let` it replaces went through
    /// `swift_once` on every access, several times per handle made.
    private static let keyPlusOne = Atomic<UInt>(0)

    @inline(__always)
    private static var key: pthread_key_t {
        let stored = keyPlusOne.load(ordering: .acquiring)
        if stored != 0 { return pthread_key_t(truncatingIfNeeded: stored &- 1) }
        return createKey()
    }

    /// Creates the key, once: a thread that loses the race deletes its own.
    @inline(never)
    private static func createKey() -> pthread_key_t {
        var key = pthread_key_t()
        // The key's value owns the frame and frees it as the thread exits;
        // the fast copy is cleared first, so that an object made later in
        // the thread's exit (another key's destructor) makes a new frame
        // rather than reading a freed one.
        let status = pthread_key_create(&key) { pointer in
            #if os(Linux)
            chronicle_construction_frame_set(nil)
            #endif
            #if canImport(Darwin)
            Unmanaged<ConstructionFrame>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<ConstructionFrame>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(status == 0, "Chronicle could not create its thread-local construction frame (pthread_key_create: \(status))")
        let (exchanged, original) = keyPlusOne.compareExchange(expected: 0, desired: UInt(key) + 1, ordering: .acquiringAndReleasing)
        if exchanged { return key }
        pthread_key_delete(key)
        return pthread_key_t(truncatingIfNeeded: original &- 1)
    }

    /// This thread's frame, unretained, if it has one. On Linux a C
    /// thread-local (`chronicle_construction_frame`), read in a few
    /// instructions where `pthread_getspecific` was a call into the C
    /// library; the pthread key still owns the frame, for its destructor.
    /// Elsewhere the key's value itself.
    @inline(__always)
    private static var existing: UnsafeMutableRawPointer? {
        #if os(Linux)
        chronicle_construction_frame_get()
        #else
        pthread_getspecific(key)
        #endif
    }

    /// This thread's frame.
    static var current: ConstructionFrame {
        if let pointer = existing {
            return Unmanaged<ConstructionFrame>.fromOpaque(pointer).takeUnretainedValue()
        }
        let frame = ConstructionFrame()
        let pointer = Unmanaged.passRetained(frame).toOpaque()
        pthread_setspecific(key, pointer)
        #if os(Linux)
        chronicle_construction_frame_set(pointer)
        #endif
        return frame
    }

    /// The ordinal of the next `@Persisted` wrapper of the managed handle
    /// being made on this thread (see ``makeHandle(_:binding:)``), or −1
    /// when none is: the wrapper then registers its initial value.
    ///
    /// Called by the wrappers' inlined initialisers, so it is not generic: a
    /// handle's wrappers only count, and their cost is this call.
    @inline(__always)
    static func handleOrdinal() -> Int {
        // No frame yet: no handle is being made on this thread.
        guard let pointer = existing else { return -1 }
        return Unmanaged<ConstructionFrame>.fromOpaque(pointer)._withUnsafeGuaranteedRef { frame in
            guard frame.handleType != nil else { return -1 }
            defer { frame.handleOrdinals += 1 }
            return frame.handleOrdinals
        }
    }

    /// Records an unmanaged object's wrapper's initial value; returns its
    /// ordinal. The slow path of the wrappers' inlined initialisers.
    @usableFromInline
    static func register<Value: _PersistableProperty>(_ value: Value, primaryKey: Bool, indexed: Bool) -> Int {
        // The value itself, not an autoclosure: the wrapper asked
        // `handleOrdinal()` first, so no handle is being made and the value
        // is kept. A closure would add a call through a thunk for every
        // property of every object made.
        withCurrent { frame in frame.appendPending(value, options: PersistedOptions(isPrimaryKey: primaryKey, isIndexed: indexed)) }
    }

    /// Records an unmanaged object's wrapper's initial value, `Value`'s
    /// default; returns its ordinal. The slow path of the wrappers' inlined
    /// initialisers.
    @usableFromInline
    static func registerDefault<Value: _PersistableProperty>(_: Value.Type, primaryKey: Bool, indexed: Bool) -> Int {
        register(Value._makeDefault(), options: PersistedOptions(isPrimaryKey: primaryKey, isIndexed: indexed))
    }

    /// Records a wrapper's initial value; returns its ordinal.
    ///
    /// The value is an autoclosure, and the method generic, so that a
    /// managed handle's wrappers (which only count) neither make a default
    /// value (an empty `List` is an allocation) nor box one in an existential.
    static func register<Value: _PersistableProperty>(_ value: @autoclosure () -> Value, options: PersistedOptions) -> Int {
        // Borrowed, not retained: the thread's key holds the frame for the
        // thread's life. A retain and release here were paid for every
        // property of every object made.
        withCurrent { frame in
            if frame.handleType != nil {
                defer { frame.handleOrdinals += 1 }
                return frame.handleOrdinals
            }
            return frame.appendPending(value(), options: options)
        }
    }

    /// Appends an initial value to the pending ones; returns its ordinal.
    @inline(__always)
    private func appendPending<Value: _PersistableProperty>(_ value: Value, options: PersistedOptions) -> Int {
        if pendingCount == pendingCapacity { growPending() }
        if let tag = value._initializeUnmanagedSlot(pendingSlots + 16 &* pendingCount) {
            (pending + pendingCount).initialize(to: UnmanagedValues.Entry(type: Value.self, boxed: nil))
            pendingTags[pendingCount] = tag
        } else {
            (pending + pendingCount).initialize(to: UnmanagedValues.Entry(type: Value.self, boxed: value))
            (pendingSlots + 16 &* pendingCount).storeBytes(of: 0, as: UInt64.self)
            pendingTags[pendingCount] = RecordStorage.Tag.null
        }
        pendingCount += 1
        // Only schema discovery reads the options, and it makes its
        // prototype with `makeInternal`: recording them for every object
        // (and clearing them on each take) was work on every object made,
        // for nothing.
        if isInternal { self.options.append(options) }
        return pendingCount - 1
    }

    /// Doubles the pending buffers. O(count); rare: the buffers are kept.
    private func growPending() {
        let larger = UnsafeMutablePointer<UnmanagedValues.Entry>.allocate(capacity: pendingCapacity * 2)
        larger.moveInitialize(from: pending, count: pendingCount)
        pending.deallocate()
        pending = larger
        // Slots move bit for bit, as records' do.
        let slots = UnsafeMutableRawPointer.allocate(byteCount: 32 * pendingCapacity, alignment: 16)
        slots.copyMemory(from: pendingSlots, byteCount: 16 * pendingCount)
        pendingSlots.deallocate()
        pendingSlots = slots
        let tags = UnsafeMutablePointer<UInt64>.allocate(capacity: pendingCapacity * 2)
        tags.initialize(from: pendingTags, count: pendingCount)
        pendingTags.deallocate()
        pendingTags = tags
        pendingCapacity *= 2
    }

    /// This thread's frame, unretained: the thread's key holds it for the
    /// thread's life.
    private static var unretainedCurrent: Unmanaged<ConstructionFrame> {
        if let pointer = existing { return Unmanaged.fromOpaque(pointer) }
        return Unmanaged.passUnretained(current)
    }

    /// Calls `body` with this thread's frame, without retaining it.
    @inline(__always)
    private static func withCurrent<R>(_ body: (ConstructionFrame) -> R) -> R {
        if let pointer = existing {
            return Unmanaged<ConstructionFrame>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
        }
        return body(current)
    }

    /// Makes a managed handle of `type` bound by `binding` (a frozen
    /// handle), skipping the work an unmanaged object needs (collecting each
    /// wrapper's initial value into an array of existentials behind a new
    /// lock): that work was most of the cost of
    /// `object(ofType:forPrimaryKey:)` and of iterating a `Results`.
    static func makeHandle<T: ObjectBase>(_ type: T.Type, binding: ObjectBinding) -> T {
        let frame = unretainedCurrent
        frame._withUnsafeGuaranteedRef { frame in
            frame.clearHandle()
            frame.handleBinding = binding
            frame.handleType = ObjectIdentifier(type)
            frame.handleOrdinals = 0
        }
        let object = type.init()
        frame._withUnsafeGuaranteedRef { $0.clearHandle() }
        return object
    }

    /// Makes a live managed handle of `type` on object `key` of `table`, a
    /// table of `store`; `snapshot` is its record in the published state
    /// numbered `sequence` (`0`: none, see `ObjectBase.liveSnapshot`), or
    /// `encoded` the block of that state's that holds it encoded.
    ///
    /// The location goes into the instance itself, not into an
    /// ``ObjectBinding``: one allocation and one free fewer per handle, and
    /// the table and store are not retained and released through a
    /// binding.
    static func makeLiveHandle<T: ObjectBase>(_ type: T.Type, store: Store, table: TableBinding, key: ObjectKey,
                                              snapshot: consuming ObjectRecord?, encoded: EncodedBlock? = nil,
                                              sequence: UInt64) -> T {
        let frame = unretainedCurrent
        // A handle made by a model's property initialiser while another is
        // being made replaces it (the outer instance is then not a handle).
        let slot = frame._withUnsafeGuaranteedRef { frame in
            frame.clearHandle()
            return frame.handleSnapshot
        }
        slot.initialize(to: consume snapshot)
        frame._withUnsafeGuaranteedRef { frame in
            frame.handleType = ObjectIdentifier(type)
            frame.handleOrdinals = 0
            frame.handleStore = Unmanaged.passRetained(store)
            frame.handleTable = Unmanaged.passUnretained(table)
            frame.handleKey = key
            frame.handleSequence = sequence
            if let encoded { frame.handleEncoded = Unmanaged.passRetained(encoded) }
        }
        let object = type.init()
        frame._withUnsafeGuaranteedRef { $0.clearHandle() }
        return object
    }

    /// Forgets the handle being made if its `ObjectBase.init` did not take
    /// it (a safety net: it always does, unless a model's property
    /// initialiser made another handle meanwhile), so that the next object
    /// made on this thread does not count ordinals and the frame keeps no
    /// store.
    @inline(__always)
    private func clearHandle() {
        guard handleType != nil else { return }
        handleType = nil
        handleBinding = nil
        if handleTable != nil {
            handleTable = nil
            handleStore.take()?.release()
            handleEncoded.take()?.release()
            handleSnapshot.deinitialize(count: 1)
        }
    }

    /// What `ObjectBase.init` of an instance of `type` takes from the frame.
    enum Handle {
        /// A live handle: the location to keep in the instance (the store
        /// retained for it).
        case live(store: Unmanaged<Store>, table: Unmanaged<TableBinding>, key: ObjectKey, snapshot: ObjectRecord?,
                  encoded: EncodedBlock?, sequence: UInt64)
        /// A handle bound by `binding` (a frozen one).
        case bound(ObjectBinding)
    }

    /// The handle being made, if `type` is its type; clears it.
    @inline(__always)
    static func takeHandle(for type: ObjectBase.Type) -> Handle? {
        unretainedCurrent._withUnsafeGuaranteedRef { frame in
            guard frame.handleType == ObjectIdentifier(type) else { return nil }
            frame.handleType = nil
            if let table = frame.handleTable {
                frame.handleTable = nil
                return .live(store: frame.handleStore.take().unsafelyUnwrapped, table: table, key: frame.handleKey,
                             snapshot: frame.handleSnapshot.move(), encoded: frame.handleEncoded.take()?.takeRetainedValue(),
                             sequence: frame.handleSequence)
            }
            return .bound(frame.handleBinding.take().unsafelyUnwrapped)
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
        return frame.isInternal || frame.handleType != nil
    }

    /// Takes every value registered since the last take, moved into new
    /// storage for the object; their options become ``lastTakenOptions``.
    /// O(values), one allocation.
    static func take() -> UnmanagedValues {
        withCurrent { frame in
            let values = UnmanagedValues.make(movingFrom: frame.pending, slots: frame.pendingSlots, tags: frame.pendingTags,
                                              count: frame.pendingCount)
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

/// ``ConstructionFrame/handleOrdinal()``, for the `@Persisted` wrappers'
/// inlined initialisers: a free function, because a static method was
/// called through a thunk that dropped its unused metatype argument.
@usableFromInline
func constructionHandleOrdinal() -> Int {
    ConstructionFrame.handleOrdinal()
}
