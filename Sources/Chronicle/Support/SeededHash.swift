import Synchronization

/// A fast 64-bit hash for Chronicle's own hash tables — the persistent hash
/// trie of the secondary and primary-key indexes, the grouping of a
/// checkpoint's indexed values — where `Hasher`'s SipHash cost more than the
/// rest of the look-up (indexing a new object's short string).
///
/// Seeded per process, as `Hasher` is, so that data written by someone
/// else cannot be made to collide on purpose.
enum SeededHash {
    /// Differs from process to process (Swift seeds `Hasher` randomly,
    /// unless `SWIFT_DETERMINISTIC_HASHING` is set).
    @inline(__always)
    static var seed: UInt64 {
        let stored = storedSeed.load(ordering: .relaxed)
        return stored != 0 ? stored : makeSeed()
    }

    /// The seed once made, `0` before. An atomic with a constant initial
    /// value, not a lazily initialised `static let`, which went through
    /// `swift_once` on every hash.
    private static let storedSeed = Atomic<UInt64>(0)

    /// Makes the seed; threads that race agree on the first one stored.
    @inline(never)
    private static func makeSeed() -> UInt64 {
        var hasher = Hasher()
        hasher.combine(0x5EED)
        let made = UInt64(bitPattern: Int64(hasher.finalize())) | 1
        let (exchanged, original) = storedSeed.compareExchange(expected: 0, desired: made, ordering: .relaxed)
        return exchanged ? made : original
    }

    /// A 64-bit mixer (the finaliser of SplitMix64, shortened): every input
    /// bit affects every output bit.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var x = x &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29
        x = x &* 0xBF58_476D_1CE4_E5B9
        return x ^ x >> 32
    }

    /// The hash of an integer.
    @inline(__always)
    static func integer(_ value: UInt64, seed: UInt64 = seed) -> UInt64 {
        mix(value ^ seed)
    }

    /// The hash of two words (a UUID's sixteen bytes, an object
    /// identifier's twelve). O(1).
    @inline(__always)
    static func words(_ first: UInt64, _ second: UInt64, seed: UInt64 = seed) -> UInt64 {
        mix(mix(seed ^ first) ^ second)
    }

    /// The hash of `bytes`, a word at a time; O(length).
    static func bytes(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = seed) -> UInt64 {
        bytesAndOr(bytes, seed: seed).hash
    }

    /// ``bytes(_:seed:)`` of the `count` (at most 15) bytes that `words`
    /// hold from its first byte on, little-endian, zeros after them (a
    /// small string's two words): the same steps on registers, with no
    /// buffer to read. O(1).
    @inline(__always)
    static func short(_ words: (UInt64, UInt64), count: Int, seed: UInt64 = seed) -> UInt64 {
        var hash = seed ^ UInt64(count)
        var rest = words.0, restCount = count
        if count >= 8 {
            hash = mix(hash ^ words.0)
            rest = words.1
            restCount = count &- 8
        }
        // As `bytesAndOr` takes its tail: a 4-, a 2- and a 1-byte load, each
        // shifted in after the ones before.
        var tail: UInt64 = 0
        if restCount & 4 != 0 {
            tail = rest & 0xFFFF_FFFF
            rest >>= 32
        }
        if restCount & 2 != 0 {
            tail = tail << 16 | rest & 0xFFFF
            rest >>= 16
        }
        if restCount & 1 != 0 { tail = tail << 8 | rest & 0xFF }
        return mix(hash ^ tail)
    }

    /// The hash of `bytes`, and the bitwise or of all of them (so that a
    /// caller learns in the same pass whether they are all ASCII).
    @inline(__always)
    private static func bytesAndOr(_ bytes: UnsafeRawBufferPointer, seed: UInt64) -> (hash: UInt64, or: UInt64) {
        var hash = seed ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return (mix(hash), 0) }
        var or: UInt64 = 0
        var index = 0
        while bytes.count - index >= 8 {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            or |= word
            hash = mix(hash ^ word)
            index += 8
        }
        // The last 0–7 bytes in at most three loads, not a byte at a time
        // (most indexed strings are shorter than a word).
        let rest = bytes.count - index
        var tail: UInt64 = 0
        if rest & 4 != 0 {
            tail = UInt64(base.loadUnaligned(fromByteOffset: index, as: UInt32.self))
            index += 4
        }
        if rest & 2 != 0 {
            tail = tail << 16 | UInt64(base.loadUnaligned(fromByteOffset: index, as: UInt16.self))
            index += 2
        }
        if rest & 1 != 0 { tail = tail << 8 | UInt64(base.load(fromByteOffset: index, as: UInt8.self)) }
        return (mix(hash ^ tail), or | tail)
    }

    /// The hash of a string, consistent with `==`, which compares strings
    /// by canonical equivalence: equal strings hash alike even when their
    /// bytes differ.
    ///
    /// An ASCII string hashes by its bytes. Exactly three non-ASCII scalars
    /// are canonically equivalent to ASCII ones — U+037E to `;`, U+1FEF to
    /// `` ` ``, U+212A (KELVIN SIGN) to `K` — so a string holding them hashes
    /// as the string with them replaced; any other non-ASCII string, which
    /// no ASCII string equals, hashes through `Hasher`, which normalises.
    /// O(length).
    static func string(_ string: String, seed: UInt64 = seed) -> UInt64 {
        let ascii = string.utf8.withContiguousStorageIfAvailable { utf8 -> UInt64? in
            let (hash, or) = bytesAndOr(UnsafeRawBufferPointer(utf8), seed: seed)
            return or & 0x8080_8080_8080_8080 == 0 ? hash : nil
        }
        if let ascii, let hash = ascii { return hash }
        return nonASCII(string, seed: seed)
    }

    /// ``string(_:seed:)`` of a string that is not ASCII, or whose UTF-8 is
    /// not contiguous (a bridged one, which may be).
    @inline(never)
    private static func nonASCII(_ string: String, seed: UInt64) -> UInt64 {
        var subject = string
        if string.unicodeScalars.contains(where: { asciiEquivalent(of: $0) != nil }) {
            var replaced = String.UnicodeScalarView()
            for scalar in string.unicodeScalars { replaced.append(asciiEquivalent(of: scalar) ?? scalar) }
            subject = String(replaced)
        }
        if subject.utf8.allSatisfy({ $0 < 0x80 }) {
            return subject.withUTF8 { bytes(UnsafeRawBufferPointer($0), seed: seed) }
        }
        // Equal to the original, so to every string equal to it, and
        // `Hasher` agrees with `==` on strings that are not ASCII.
        var hasher = Hasher()
        hasher.combine(seed)
        hasher.combine(subject)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    /// The ASCII scalar a non-ASCII `scalar` is canonically equivalent to.
    private static func asciiEquivalent(of scalar: Unicode.Scalar) -> Unicode.Scalar? {
        switch scalar.value {
        case 0x037E: ";"
        case 0x1FEF: "`"
        case 0x212A: "K"
        default: nil
        }
    }
}
