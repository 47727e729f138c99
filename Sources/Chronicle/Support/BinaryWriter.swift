import Foundation

/// Appends Chronicle's compact binary encoding to a byte buffer.
///
/// The encoding is the one the journal article documents: unsigned integers
/// are LEB128 varints, signed integers are zig-zag varints, floating-point
/// numbers are their IEEE-754 bit patterns in little-endian order, and strings
/// and byte blobs are a varint length followed by the bytes.
///
/// The buffer keeps zero-filled slack past the bytes written, and each field
/// is stored through one pointer into it: appending to an array a byte at a
/// time checked capacity and uniqueness per byte, and was most of the cost
/// of encoding a commit. Each write is O(its size), amortised.
struct BinaryWriter {
    /// The bytes written, then slack (`storage.count >= count`).
    private var storage: [UInt8]
    /// How many bytes of `storage` are written.
    private(set) var count = 0

    /// The longest varint: 64 bits, seven a byte.
    static let maximumVarintSize = 10

    /// A writer with room for `capacity` bytes before it grows; with `0`,
    /// no buffer at all until the first write.
    init(capacity: Int = 64) {
        storage = capacity == 0 ? [] : [UInt8](repeating: 0, count: Swift.max(capacity, 16))
    }

    /// The bytes written so far.
    ///
    /// Mutating: it drops the slack first, so the array returned shares the
    /// writer's buffer instead of copying it. O(1).
    var bytes: [UInt8] {
        mutating get {
            if storage.count != count { storage.removeSubrange(count...) }
            return storage
        }
    }

    /// Makes room for `size` more bytes, then lets `body` write at most that
    /// many at the end and return how many it wrote.
    @inline(__always)
    private mutating func append(upTo size: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        if storage.count - count < size { grow(size) }
        let start = count
        count += storage.withUnsafeMutableBufferPointer { body($0.baseAddress.unsafelyUnwrapped + start) }
    }

    /// Calls `body` with the bytes written so far, without copying them.
    func withWrittenBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// ``withWrittenBytes(_:)`` for a `body` that throws.
    func withWrittenBytes<Result, Failure: Error>(throwing body: (UnsafeRawBufferPointer) throws(Failure) -> Result) throws(Failure) -> Result {
        try storage.withBytes { (raw) throws(Failure) in try body(UnsafeRawBufferPointer(rebasing: raw[..<count])) }
    }

    /// Forgets the bytes written, keeping the buffer for the next ones.
    mutating func removeAll() { count = 0 }

    /// Appends `size` zero bytes, to be overwritten later
    /// (``overwrite(_:at:)``): room left for what can only be written once
    /// what follows it is. O(`size`), amortised.
    mutating func skip(_ size: Int) {
        append(upTo: size) { _ in size }  // the slack is zeros already
    }

    /// Replaces the written bytes at `offset..<offset + bytes.count`.
    /// O(`bytes.count`).
    mutating func overwrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        precondition(offset >= 0 && offset + bytes.count <= count, "BinaryWriter: overwriting past the bytes written")
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        storage.withUnsafeMutableBytes { raw in
            (raw.baseAddress.unsafelyUnwrapped + offset).copyMemory(from: source, byteCount: bytes.count)
        }
    }

    /// Extends the slack to the capacity already allocated (``bytes`` drops
    /// the slack but keeps the capacity, and a small write after it must not
    /// copy a large buffer), or else at least doubles the buffer, so a run of
    /// appends costs O(1) each.
    @inline(never)
    private mutating func grow(_ size: Int) {
        let needed = count + size
        var newCount = storage.capacity
        if newCount < needed { newCount = Swift.max(needed, 2 * storage.count) }
        storage.append(contentsOf: repeatElement(0, count: newCount - storage.count))
    }

    /// Stores `value` as a varint at `pointer`; returns its length (1...10).
    @inline(__always)
    static func putVarint(_ value: UInt64, at pointer: UnsafeMutablePointer<UInt8>) -> Int {
        var value = value
        var length = 0
        while value >= 0x80 {
            pointer[length] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            length += 1
        }
        pointer[length] = UInt8(truncatingIfNeeded: value)
        return length + 1
    }

    /// The zig-zag form of `value`, whose varint is short for small negatives.
    @inline(__always)
    static func zigZag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    /// Stores the little-endian bytes of `value` at `pointer`; returns their count.
    @inline(__always)
    static func putFixed<T: FixedWidthInteger>(_ value: T, at pointer: UnsafeMutablePointer<UInt8>) -> Int {
        UnsafeMutableRawPointer(pointer).storeBytes(of: value.littleEndian, as: T.self)
        return MemoryLayout<T>.size
    }

    mutating func byte(_ value: UInt8) {
        append(upTo: 1) { $0.pointee = value; return 1 }
    }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first.
    mutating func varint(_ value: UInt64) {
        append(upTo: Self.maximumVarintSize) { Self.putVarint(value, at: $0) }
    }

    mutating func varint(_ value: Int) { varint(UInt64(value)) }

    /// A zig-zag varint, so small negative numbers stay short.
    mutating func signed(_ value: Int64) {
        varint(Self.zigZag(value))
    }

    /// A one-byte tag followed by a zig-zag varint, in one store.
    mutating func tagged(_ tag: UInt8, signed value: Int64) {
        append(upTo: 1 + Self.maximumVarintSize) { pointer in
            pointer.pointee = tag
            return 1 + Self.putVarint(Self.zigZag(value), at: pointer + 1)
        }
    }

    /// A one-byte tag followed by the little-endian bytes of `value`, in one store.
    mutating func tagged<T: FixedWidthInteger>(_ tag: UInt8, fixed value: T) {
        append(upTo: 1 + MemoryLayout<T>.size) { pointer in
            pointer.pointee = tag
            return 1 + Self.putFixed(value, at: pointer + 1)
        }
    }

    /// An event's head: its tag, table (varint) and object key (zig-zag), in one store.
    mutating func target(_ tag: UInt8, table: Int, key: Int64) {
        append(upTo: 1 + 2 * Self.maximumVarintSize) { pointer in
            pointer.pointee = tag
            var length = 1 + Self.putVarint(UInt64(table), at: pointer + 1)
            length += Self.putVarint(Self.zigZag(key), at: pointer + length)
            return length
        }
    }

    mutating func fixed16(_ value: UInt16) {
        append(upTo: 2) { Self.putFixed(value, at: $0) }
    }

    mutating func fixed32(_ value: UInt32) {
        append(upTo: 4) { Self.putFixed(value, at: $0) }
    }

    mutating func fixed64(_ value: UInt64) {
        append(upTo: 8) { Self.putFixed(value, at: $0) }
    }

    /// Overwrites four bytes already written at `offset` (used for length and
    /// checksum fields that are known only after what follows them).
    mutating func patch32(_ value: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= count, "BinaryWriter: patch past the bytes written")
        storage.withUnsafeMutableBufferPointer { _ = Self.putFixed(value, at: $0.baseAddress.unsafelyUnwrapped + offset) }
    }

    /// A varint length and the bytes of `utf8`, preceded by `tag` if it is
    /// not `nil`, in one store.
    private mutating func lengthPrefixed(_ tag: UInt8?, _ bytes: UnsafeRawBufferPointer) {
        append(upTo: 1 + Self.maximumVarintSize + bytes.count) { pointer in
            var length = 0
            if let tag {
                pointer.pointee = tag
                length = 1
            }
            length += Self.putVarint(UInt64(bytes.count), at: pointer + length)
            if let base = bytes.baseAddress, !bytes.isEmpty {
                UnsafeMutableRawPointer(pointer + length).copyMemory(from: base, byteCount: bytes.count)
            }
            return length + bytes.count
        }
    }

    mutating func string(_ value: String) {
        taggedString(nil, value)
    }

    /// `tag` (if not `nil`), then the string's varint length and UTF-8.
    mutating func taggedString(_ tag: UInt8?, _ value: String) {
        // Read in place where the UTF-8 is contiguous (native strings, small
        // ones included): `withUTF8` needs a mutable copy of the string,
        // one more per string written.
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { lengthPrefixed(tag, UnsafeRawBufferPointer($0)) }
        if done == nil {
            var value = value
            value.withUTF8 { lengthPrefixed(tag, UnsafeRawBufferPointer($0)) }
        }
    }

    /// `tag`, then the length and bytes of the string of at most
    /// ``SmallASCIIString/capacity`` ASCII bytes whose small-string words
    /// are `words` (`count` of them, see ``SmallASCIIString``): what
    /// ``taggedString(_:_:)`` writes for it, in two 8-byte stores and no
    /// look at the string. The bytes the words hold past the string are
    /// zeros, so the slack stays zero-filled.
    mutating func taggedSmallASCII(_ tag: UInt8, words: (UInt64, UInt64), count: Int) {
        append(upTo: 2 + 16) { pointer in
            pointer[0] = tag
            pointer[1] = UInt8(truncatingIfNeeded: count)
            let bytes = UnsafeMutableRawPointer(pointer + 2)
            bytes.storeBytes(of: words.0.littleEndian, as: UInt64.self)
            // Without the flags byte, which is not the string's.
            bytes.storeBytes(of: (words.1 & 0x00FF_FFFF_FFFF_FFFF).littleEndian, toByteOffset: 8, as: UInt64.self)
            return 2 + count
        }
    }

    mutating func blob<C: Collection>(_ value: C) where C.Element == UInt8 {
        let done: Void? = value.withContiguousStorageIfAvailable { lengthPrefixed(nil, UnsafeRawBufferPointer($0)) }
        if done == nil {
            varint(value.count)
            raw(value)
        }
    }

    mutating func raw<C: Collection>(_ value: C) where C.Element == UInt8 {
        let size = value.count
        append(upTo: size) { pointer in
            _ = UnsafeMutableBufferPointer(start: pointer, count: size).initialize(from: value)
            return size
        }
    }
}
