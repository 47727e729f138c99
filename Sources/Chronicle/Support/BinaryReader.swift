import Foundation

/// Reads Chronicle's compact binary encoding (see ``BinaryWriter``).
///
/// Every read is bounds-checked and throws ``BinaryReader/Malformed`` instead
/// of trapping, and no length field can make the reader allocate more than the
/// bytes that remain: a decoder fed hostile input fails, it never crashes.
///
/// The reader borrows its buffer: use it only inside the `withUnsafeBytes`
/// call that produced the pointer.
struct BinaryReader {
    /// The input ended early or held a value that cannot be decoded.
    struct Malformed: Error, CustomStringConvertible {
        /// Offset, from the start of the buffer, where decoding failed.
        let offset: Int
        let reason: String
        /// Whether decoding stopped at a tag (or flag bits) this build does
        /// not know, in otherwise well-formed input: what a newer Chronicle
        /// writes when it adds an event kind, a value type or a property
        /// attribute, rather than damage.
        let isUnknownTag: Bool
        var description: String { "malformed data at byte \(offset): \(reason)" }

        init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
            isUnknownTag = false
        }

        private init(unknownTagAt offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
            isUnknownTag = true
        }

        /// A tag (or flag bits) at `offset` that this build does not know.
        static func unknownTag(offset: Int, _ reason: String) -> Malformed {
            Malformed(unknownTagAt: offset, reason: reason)
        }
    }

    private let buffer: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0) {
        self.buffer = buffer
        self.offset = offset
    }

    var remaining: Int { buffer.count - offset }
    var isAtEnd: Bool { offset >= buffer.count }

    func fail(_ reason: String) -> Malformed { Malformed(offset: offset, reason: reason) }

    // Failures are built out of line, so that the reads themselves stay
    // small, and a one-byte varint is read without a call: both are on the
    // path of every value an iteration of a checkpointed table decodes.

    /// The input ended before a value did.
    @inline(never)
    private func endOfData() -> Malformed { fail("unexpected end of data") }

    @inline(__always)
    mutating func byte() throws(Malformed) -> UInt8 {
        guard offset < buffer.count else { throw endOfData() }
        defer { offset += 1 }
        return buffer[offset]
    }

    /// The next byte, without consuming it; `nil` at the end.
    func peek() -> UInt8? { offset < buffer.count ? buffer[offset] : nil }

    /// Consumes the byte ``peek()`` just returned (not `nil`).
    mutating func skipPeekedByte() { offset += 1 }

    /// The next eight bytes as one little-endian word, without consuming
    /// them; `nil` when fewer remain. O(1).
    @inline(__always)
    func peekWord() -> UInt64? {
        guard buffer.count - offset >= 8, let base = buffer.baseAddress else { return nil }
        return UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))
    }

    /// Consumes `count` bytes of those ``peekWord()`` just returned.
    @inline(__always)
    mutating func skipPeeked(_ count: Int) { offset += count }

    mutating func varint() throws(Malformed) -> UInt64 {
        // One byte, the commonest (tags, lengths, small integers), inline.
        if offset < buffer.count, buffer[offset] < 0x80 {
            defer { offset += 1 }
            return UInt64(buffer[offset])
        }
        // Two or three bytes (object keys, identifiers, most integers),
        // from one load and without a call, while ten bytes remain. The
        // first byte has its continuation bit (or the input ended).
        if buffer.count - offset >= 10, let base = buffer.baseAddress,
           let (value, length) = Self.twoOrThreeByteVarint(UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))) {
            offset += length
            return value
        }
        return try longVarint()
    }

    /// The varint that `word`'s low bytes start with (little-endian), and
    /// its length, if it is one to three bytes long; `nil` otherwise: what
    /// a caller that may load a word where the varint starts reads without
    /// a loop. O(1).
    @inline(__always)
    static func oneToThreeByteVarint(_ word: UInt64) -> (UInt64, length: Int)? {
        word & 0x80 == 0 ? (word & 0x7F, 1) : twoOrThreeByteVarint(word)
    }

    /// The varint that `word`'s low bytes start with (little-endian), and
    /// its length, if it is two or three bytes long; `nil` otherwise. Its
    /// first byte must have its continuation bit (a one-byte varint is
    /// read without this). O(1): masks and shifts, no loop.
    @inline(__always)
    static func twoOrThreeByteVarint(_ word: UInt64) -> (UInt64, length: Int)? {
        if word & 0x8000 == 0 { return (word & 0x7F | word >> 1 & 0x3F80, 2) }
        if word & 0x80_0000 == 0 { return (word & 0x7F | word >> 1 & 0x3F80 | word >> 2 & 0x1F_C000, 3) }
        return nil
    }

    /// The varint that `word`'s low bytes start with (little-endian), and
    /// its length, if it is one to four bytes long; `nil` otherwise. O(1):
    /// masks and shifts, no loop.
    @inline(__always)
    static func oneToFourByteVarint(_ word: UInt64) -> (UInt64, length: Int)? {
        if let short = oneToThreeByteVarint(word) { return short }
        if word & 0x8000_0000 == 0 {
            return (word & 0x7F | word >> 1 & 0x3F80 | word >> 2 & 0x1F_C000 | word >> 3 & 0xFE0_0000, 4)
        }
        return nil
    }

    @inline(never)
    private mutating func longVarint() throws(Malformed) -> UInt64 {
        // With ten bytes left, no bounds check a byte: a loop of constant
        // length, unrolled, which takes far fewer instructions than the
        // checked loop.
        if buffer.count - offset >= 10, let base = buffer.baseAddress {
            let start = base + offset
            // Four bytes from one load too (`varint()` read two and three).
            let word = UInt64(littleEndian: start.loadUnaligned(as: UInt64.self))
            if word & 0x8000_0000 == 0 {
                offset += 4
                return word & 0x7F | word >> 1 & 0x3F80 | word >> 2 & 0x1F_C000 | word >> 3 & 0xFE0_0000
            }
            var result: UInt64 = 0
            for index in 0..<9 {
                let next = start.load(fromByteOffset: index, as: UInt8.self)
                result |= UInt64(next & 0x7F) << UInt64(7 * index)
                if next < 0x80 {
                    offset += index + 1
                    return result
                }
            }
            let last = start.load(fromByteOffset: 9, as: UInt8.self)
            offset += 10
            if last > 1 { throw fail("varint overflows 64 bits") }
            return result | UInt64(last) << 63
        }
        return try shortVarint()
    }

    /// ``longVarint()`` near the end of the buffer.
    private mutating func shortVarint() throws(Malformed) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while offset < buffer.count {
            let next = buffer[offset]
            offset += 1
            if shift == 63 && next > 1 { throw fail("varint overflows 64 bits") }
            result |= UInt64(next & 0x7F) << shift
            if next & 0x80 == 0 { return result }
            shift += 7
            if shift > 63 { throw fail("varint longer than 10 bytes") }
        }
        throw endOfData()
    }

    /// Steps over a varint without decoding it.
    mutating func skipVarint() throws(Malformed) {
        let end = min(buffer.count, offset + 10)
        while offset < end {
            let next = buffer[offset]
            offset += 1
            if next < 0x80 { return }
        }
        throw offset < buffer.count ? fail("varint longer than 10 bytes") : endOfData()
    }

    /// A varint that must fit an `Int` and be at most `limit`.
    mutating func count(limit: Int) throws(Malformed) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw countTooLarge(value, limit: limit) }
        return Int(value)
    }

    @inline(never)
    private func countTooLarge(_ value: UInt64, limit: Int) -> Malformed {
        fail("count \(value) exceeds the \(limit) that can follow")
    }

    /// ``signed()`` with a varint of up to three bytes decoded inline
    /// (while ten bytes remain): for the hottest decodes only (a record's
    /// integers, an event's key), since inlining ``varint()`` everywhere
    /// cost more in the larger callers than the calls it saved.
    @inline(__always)
    mutating func signedInline() throws(Malformed) -> Int64 {
        let raw: UInt64
        if buffer.count - offset >= 10, let base = buffer.baseAddress {
            if let (value, length) = Self.oneToThreeByteVarint(UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))) {
                offset += length
                raw = value
            } else {
                raw = try varint()
            }
        } else {
            raw = try varint()
        }
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func signed() throws(Malformed) -> Int64 {
        let raw = try varint()
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    mutating func fixed32() throws(Malformed) -> UInt32 {
        guard remaining >= 4 else { throw endOfData() }
        defer { offset += 4 }
        return UInt32(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func fixed64() throws(Malformed) -> UInt64 {
        guard remaining >= 8 else { throw endOfData() }
        defer { offset += 8 }
        return UInt64(littleEndian: buffer.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func bytes(_ count: Int) throws(Malformed) -> UnsafeRawBufferPointer {
        guard count >= 0, remaining >= count else { throw pastTheEnd(count) }
        defer { offset += count }
        // Checked just above: no slice, whose bounds would be checked again.
        return UnsafeRawBufferPointer(start: buffer.baseAddress.map { $0 + offset }, count: count)
    }

    @inline(never)
    private func pastTheEnd(_ count: Int) -> Malformed { fail("length \(count) runs past the end") }

    /// The next value's bytes, if they are a string of at most 15 ASCII
    /// bytes followed by at least 16 more bytes of input, as the two words
    /// of the small string ``string()`` would return (consumed); `nil`
    /// otherwise (nothing consumed). For a caller that stores the string
    /// where it goes, with no `String` made and copied on the way. Only
    /// where ``SmallASCIIString/isAvailable``: the caller checks, once.
    @inline(__always)
    mutating func shortASCIIStringWords() -> (UInt64, UInt64)? {
        guard let base = buffer.baseAddress, buffer.count - offset > 16,
              let words = SmallASCIIString.words(count: Int(base.load(fromByteOffset: offset, as: UInt8.self)), at: base + offset + 1)
        else { return nil }
        offset += 1 + Int(base.load(fromByteOffset: offset, as: UInt8.self))
        return words
    }

    mutating func string() throws(Malformed) -> String {
        // At most 15 ASCII bytes (most names and titles): the length's one
        // varint byte read in place and the string laid out straight from
        // its bytes, without the checked steps below (which give the same
        // string).
        if let base = buffer.baseAddress, offset < buffer.count {
            let length = Int(base.load(fromByteOffset: offset, as: UInt8.self))
            if length <= SmallASCIIString.capacity, length < buffer.count - offset {
                // With 16 bytes after the length, two loads; otherwise a copy.
                let small = buffer.count - offset > 16
                    ? SmallASCIIString.make(count: length, at: base + offset + 1)
                    : SmallASCIIString.make(UnsafeRawBufferPointer(start: base + offset + 1, count: length).bindMemory(to: UInt8.self))
                if let small {
                    offset += 1 + length
                    return small
                }
            }
        }
        let length = try count(limit: remaining)
        let start = offset
        let raw = try bytes(length)
        guard let value = Self.validUTF8(raw.bindMemory(to: UInt8.self)) else {
            throw Malformed(offset: start, reason: "string is not valid UTF-8")
        }
        return value
    }

    /// `bytes` as a string if they are valid UTF-8.
    ///
    /// `String(validating:as:)` runs unspecialised here (a generic-metadata
    /// lookup per call, several times the cost of the copy), and the fold
    /// decodes a string per property. `String(decoding:as:)` is the fast path
    /// but repairs bad bytes instead of failing, so a repaired result — which
    /// no longer has the input's bytes — tells that the input was invalid.
    static func validUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        if let small = SmallASCIIString.make(bytes) { return small }
        // ASCII, the common case, is valid UTF-8 as it is: no need to
        // compare the decoded copy (a large part of a short string's cost).
        if isASCII(bytes) { return String(decoding: bytes, as: UTF8.self) }
        let value = String(decoding: bytes, as: UTF8.self)
        var same = false
        var copy = value
        copy.withUTF8 { decoded in
            same = decoded.count == bytes.count
                && (bytes.isEmpty || memcmp(decoded.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
        return same ? value : nil
    }

    /// Whether every byte is below 0x80, eight at a time.
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        var seen: UInt64 = 0
        while bytes.count - index >= 8 {
            seen |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            seen |= UInt64(bytes[index])
            index += 1
        }
        return seen & 0x8080_8080_8080_8080 == 0
    }

    mutating func blob() throws(Malformed) -> [UInt8] {
        let length = try count(limit: remaining)
        return Array(try bytes(length))
    }
}
