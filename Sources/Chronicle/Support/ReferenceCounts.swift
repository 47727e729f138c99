import Synchronization

/// The Swift runtime's count of strong references to the object at
/// `object` (what the standard library's `_getRetainCount` reads).
///
/// Through a raw pointer, so that reading the count adds no reference of
/// its own: passing the object itself retains it for the call in
/// unoptimised code, and the count is then one too many.
@_silgen_name("swift_retainCount")
private func runtimeRetainCount(_ object: UnsafeMutableRawPointer) -> Int

extension Unmanaged {
    /// Whether exactly one strong reference holds the object: this
    /// unretained one not counted, a stored property (a projection's base
    /// object) that nothing else shares. `isKnownUniquelyReferenced` asks
    /// the same of a variable it can borrow mutably; a `let` property
    /// cannot be.
    var isHeldOnce: Bool { runtimeRetainCount(toOpaque()) == 1 }

    /// Whether exactly one strong reference holds the object and no weak
    /// or unowned reference to it can be reached: ``isHeldOnce`` and
    /// ``hasNoWeakOrUnownedReferences(_:)`` together, from one load of the
    /// object's inline count where that answers (see
    /// ``InlineReferenceCount``).
    @inline(__always)
    var isHeldOnceAndNeverWeaklyOrUnownedReferenced: Bool {
        if let word = InlineReferenceCount.word(of: toOpaque()) { return word & ~InlineReferenceCount.ignored == InlineReferenceCount.heldOnce }
        return isHeldOnce && hasNoWeakOrUnownedReferences(takeUnretainedValue())
    }
}

/// Whether no weak or unowned reference was ever taken to `object` (the
/// runtime counts both from 1, which is none), so that moving it to
/// another object cannot surprise a reference its user still has: a weak
/// reference to a freed object reads `nil` and an unowned one traps, where
/// to a moved one both would read the other object.
///
/// - Complexity: one load of the object's inline count where that answers
///   (see ``InlineReferenceCount``); otherwise two calls of the runtime.
@inline(__always)
func hasNoWeakOrUnownedReferences(_ object: AnyObject) -> Bool {
    if let word = InlineReferenceCount.word(of: Unmanaged.passUnretained(object).toOpaque()) {
        return word & ~(InlineReferenceCount.ignored | InlineReferenceCount.strongExtra) == InlineReferenceCount.heldOnce
    }
    return _getWeakRetainCount(object) == 1 && _getUnownedRetainCount(object) == 1
}

/// The reference counts a native Swift object keeps inline, read in one
/// load instead of a call of the runtime per count.
///
/// Reuse by an iteration asks, for every element, whether the element and
/// its handle are held once and were never referenced weakly or unowned
/// (see `Results.Iterator`); the runtime answers each count in a call of
/// its own, four to six calls an element. On 64-bit platforms the runtime
/// keeps, in the word after an object's type: bit 0 a flag this reading
/// ignores, bits 1–31 the unowned count (1 is none), bit 32 "deinitialising",
/// bits 33–62 the strong references beyond the first, bit 63 "the counts
/// moved to a side table" (which the first weak reference does, for good).
/// So a word of `2` (the flag aside) is one strong reference, no unowned
/// one and no weak one ever.
///
/// That layout is the runtime's own, not a promised interface: it is
/// checked once per process on a probe object (fresh, retained once more,
/// referenced unowned, referenced weakly — each word must read as above),
/// and if any check fails, or the platform is not 64-bit, every question
/// goes to the runtime's calls. A word whose counts are in a side table is
/// asked of the runtime too.
enum InlineReferenceCount {
    /// Bit 0: a flag of the runtime's, not a count.
    static let ignored: UInt64 = 1
    /// Bits 33–62: the strong references beyond the first.
    static let strongExtra: UInt64 = 0x7FFF_FFFE_0000_0000
    /// Bit 63: the counts are in a side table (a weak reference was taken).
    static let sideTable: UInt64 = 1 << 63
    /// One strong reference, an unowned count of 1 (none), nothing else.
    static let heldOnce: UInt64 = 2

    /// Whether this process's runtime lays the word out as above.
    ///
    /// Read on every element of an iteration: an atomic with a constant
    /// initial value (statically initialised, one load), where a
    /// `static let` of the answer asked `swift_once` on every read.
    @inline(__always)
    static var isVerified: Bool {
        switch answer.load(ordering: .relaxed) {
        case 1: true
        case 2: false
        default: verifyOnce()
        }
    }

    /// `0` until ``isVerified`` is first read, then `1` (verified) or `2`.
    private static let answer = Atomic<UInt8>(0)
    /// The verification, run once however many threads ask at first.
    private static let verified = verify()

    @inline(never)
    private static func verifyOnce() -> Bool {
        let verified = verified
        answer.store(verified ? 1 : 2, ordering: .relaxed)
        return verified
    }

    /// The inline count word of the native object at `object`, if the
    /// layout is verified and the counts are inline (no side table).
    @inline(__always)
    static func word(of object: UnsafeMutableRawPointer) -> UInt64? {
        guard isVerified else { return nil }
        // The word is changed only by the runtime's atomic operations; an
        // aligned 8-byte load sees it whole. Every caller asks about an
        // object it holds, whose counts only it can change.
        let word = object.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UInt64.self)
        return word & sideTable == 0 ? word : nil
    }

    /// Reads the word of a probe object in each state the answers depend
    /// on: fresh (its strong count checked with the runtime's too),
    /// retained once more, referenced unowned, referenced weakly.
    private static func verify() -> Bool {
        #if _pointerBitWidth(_64)
        // Held by the unmanaged reference alone: no variable's own
        // reference (which unoptimised code keeps) in the counts.
        let probe = Unmanaged.passRetained(Probe())
        defer { probe.release() }
        let pointer = probe.toOpaque()
        func load() -> UInt64 { pointer.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UInt64.self) }
        let fresh = load()
        guard fresh & ~ignored == heldOnce, runtimeRetainCount(pointer) == 1 else { return false }
        // A second strong reference, where the optimiser cannot pair its
        // retain with a release and drop both (as it does an `Unmanaged`'s).
        guard Probe.keep(probe.takeUnretainedValue()), load() == fresh + (1 << 33) else { return false }
        Probe.release()
        guard load() == fresh else { return false }
        guard Probe.keep(Probe.Unowned(probe.takeUnretainedValue())), load() == fresh + 2 else { return false }
        Probe.release()
        guard load() == fresh else { return false }
        guard Probe.keep(Probe.Weak(probe.takeUnretainedValue())), load() & sideTable != 0 else { return false }
        Probe.release()
        return true
        #else
        return false
        #endif
    }

    /// The object `verify()` reads, and holders of an unowned and a weak
    /// reference to it; `keep` holds a reference (the probe itself, or a
    /// holder) out of the optimiser's sight while the word is read.
    private final class Probe {
        final class Unowned {
            unowned let object: Probe
            init(_ object: Probe) { self.object = object }
        }
        final class Weak {
            weak var object: Probe?
            init(_ object: Probe) { self.object = object }
        }
        nonisolated(unsafe) private static var kept: AnyObject?

        /// Keeps `holder` until ``release()``, where the optimiser cannot
        /// see it unused (a global). Called only by `verify()`, which runs
        /// once (a `static let`'s initialisation), so never concurrently.
        @inline(never)
        static func keep(_ holder: AnyObject) -> Bool {
            kept = holder
            return true
        }

        @inline(never)
        static func release() { kept = nil }
    }
}
