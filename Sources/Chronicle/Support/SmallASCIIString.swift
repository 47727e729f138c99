/// Strings of at most 15 ASCII bytes made straight from their bytes:
/// the journal's and checkpoint's names, teams and titles mostly are such.
///
/// A Swift string this short is stored inline, in the string's own two
/// words: the bytes, then a flags byte (ASCII, small, immortal) with the
/// count. `String(decoding:as:)` reaches that form too, but only after an
/// out-of-line call that checks the bytes again and copies them through a
/// temporary — several times the cost of the copy. Decoding a journal or a
/// checkpoint makes a string per string property read.
///
/// The layout is the standard library's (`_StringObject`, frozen in its
/// ABI on Apple platforms, the same source on Linux). ``isAvailable`` checks
/// it once, at first use, against strings the standard library made: if
/// a toolchain ever lays small strings out otherwise, every string goes the
/// ordinary way.
enum SmallASCIIString {
    /// The longest string stored inline.
    static let capacity = 15

    /// Whether this process's standard library lays small ASCII strings out
    /// as ``make(_:)`` assumes. Checked once.
    static let isAvailable: Bool = {
        #if _pointerBitWidth(_64)
        for sample in ["", "a", "Chronicle", "fifteen letters"] {
            let bytes = Array(sample.utf8)
            let made = bytes.withUnsafeBufferPointer { layOut($0) }
            let expected = String(decoding: bytes, as: UTF8.self)
            guard let made, unsafeBitCast(expected, to: (UInt64, UInt64).self) == made else { return false }
        }
        return true
        #else
        return false
        #endif
    }()

    /// `bytes` as a string if they are at most ``capacity`` ASCII bytes
    /// (which are valid UTF-8 as they are); `nil` otherwise. O(1).
    @inline(__always)
    static func make(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        #if _pointerBitWidth(_64)
        guard bytes.count <= capacity, isAvailable, let words = layOut(bytes) else { return nil }
        return unsafeBitCast(words, to: String.self)
        #else
        return nil
        #endif
    }

    /// The `count` (at most ``capacity``) bytes at `start` as a string if
    /// they are all ASCII, `nil` otherwise; the 16 bytes from `start` must
    /// be readable (the caller's buffer goes on past the string). O(1):
    /// two loads, where a copy of `count` bytes calls `memcpy`.
    @inline(__always)
    static func make(count: Int, at start: UnsafeRawPointer) -> String? {
        #if _pointerBitWidth(_64)
        guard isAvailable, let words = words(count: count, at: start) else { return nil }
        return unsafeBitCast(words, to: String.self)
        #else
        return nil
        #endif
    }

    /// The two words of the small string of the `count` bytes at `start`
    /// (see ``make(count:at:)``), or `nil` if they are too many or not all
    /// ASCII. Only where ``isAvailable``: the caller checks, once.
    @inline(__always)
    static func words(count: Int, at start: UnsafeRawPointer) -> (UInt64, UInt64)? {
        guard count <= capacity else { return nil }
        var low = UInt64(littleEndian: start.loadUnaligned(as: UInt64.self))
        var high = UInt64(littleEndian: start.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        // Only the string's own bytes: the rest of the two words is zeros.
        if count < 8 {
            low &= (1 &<< UInt64(8 &* count)) &- 1
            high = 0
        } else {
            high &= (1 &<< UInt64(8 &* (count &- 8))) &- 1
        }
        return finished((low, high), count: count)
    }

    /// The two words of the small string holding `bytes` (see
    /// ``words(count:at:)``), copied: for bytes that may not be followed by
    /// sixteen readable ones. Only where ``isAvailable``: the caller checks,
    /// once. Out of line: only a string within 16 bytes of its file's end
    /// takes it, and its buffer on the stack made every caller guard its
    /// stack frame.
    @inline(never)
    static func words(copying bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        layOut(bytes.bindMemory(to: UInt8.self))
    }

    /// `bytes`, the first `count` of them the string's and the rest zeros,
    /// as a small string's words: `nil` unless all ASCII.
    @inline(__always)
    private static func finished(_ bytes: (UInt64, UInt64), count: Int) -> (UInt64, UInt64)? {
        guard (bytes.0 | bytes.1) & 0x8080_8080_8080_8080 == 0 else { return nil }
        // Small (0x20), ASCII (0x40), immortal (0x80), and the count.
        return (bytes.0, bytes.1 | (0xE0 | UInt64(count)) << 56)
    }

    /// How many bytes the small ASCII string whose two words are `words`
    /// holds; `nil` if they are not such a string's (its flags byte says
    /// otherwise). Only where ``isAvailable``: the caller checks, once.
    @inline(__always)
    static func count(ofWords words: (UInt64, UInt64)) -> Int? {
        words.1 >> 60 == 0xE ? Int(words.1 >> 56 & 0xF) : nil
    }

    /// Whether a string whose second word is `word` is laid out as
    /// ``make(_:)`` lays one out — small, ASCII, immortal — and so holds no
    /// reference: destroying it releases nothing. Only where
    /// ``isAvailable``: the caller checks. O(1).
    @inline(__always)
    static func holdsNoReference(secondWord word: UInt64) -> Bool {
        word >> 60 == 0xE
    }

    /// The two words of the small string holding `bytes`, or `nil` if they
    /// are too many or not all ASCII.
    @inline(__always)
    private static func layOut(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        let count = bytes.count
        guard count <= capacity else { return nil }
        var words: (UInt64, UInt64) = (0, 0)
        if let base = bytes.baseAddress {
            withUnsafeMutableBytes(of: &words) { $0.baseAddress.unsafelyUnwrapped.copyMemory(from: base, byteCount: count) }
        }
        return finished(words, count: count)
    }
}
