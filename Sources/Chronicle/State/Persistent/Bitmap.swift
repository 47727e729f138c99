/// Bit arithmetic shared by the bitmap-compressed tries.
///
/// A trie node keeps a 64-bit bitmap of which of its 64 slots are occupied
/// and a compact array holding only the occupied ones, in slot order; the
/// array position of slot `i` is the number of occupied slots below `i`.
enum Bitmap {
    /// Bits consumed per trie level.
    static let bitsPerLevel = 6

    /// The single bit for slot `index` (0...63).
    @inline(__always)
    static func bit(_ index: Int) -> UInt64 { UInt64(1) << UInt64(index) }

    /// The bits strictly below slot `index`.
    @inline(__always)
    static func below(_ index: Int) -> UInt64 { bit(index) &- 1 }

    /// The compact-array position of slot `index` in `bitmap`. O(1).
    @inline(__always)
    static func position(_ bitmap: UInt64, _ index: Int) -> Int { (bitmap & below(index)).nonzeroBitCount }

    /// The 6-bit digit of `value` at `shift`.
    @inline(__always)
    static func digit(_ value: UInt64, _ shift: Int) -> Int { Int(truncatingIfNeeded: (value >> UInt64(shift)) & 63) }
}
