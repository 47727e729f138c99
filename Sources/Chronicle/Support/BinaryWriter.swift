import Foundation

/// Appends Chronicle's compact binary encoding to a byte buffer.
///
/// The encoding is the one the journal article documents: unsigned integers
/// are LEB128 varints, signed integers are zig-zag varints, floating-point
/// numbers are their IEEE-754 bit patterns in little-endian order, and strings
/// and byte blobs are a varint length followed by the bytes.
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 64) { bytes.reserveCapacity(capacity) }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// An unsigned LEB128 varint: seven bits a byte, low bits first.
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func varint(_ value: Int) { varint(UInt64(value)) }

    /// A zig-zag varint, so small negative numbers stay short.
    mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func fixed16(_ value: UInt16) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fixed32(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func fixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Overwrites four bytes already written at `offset` (used for length and
    /// checksum fields that are known only after what follows them).
    mutating func patch32(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for i in 0..<4 { bytes[offset + i] = raw[i] }
        }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            varint(utf8.count)
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func blob<C: Collection>(_ value: C) where C.Element == UInt8 {
        varint(value.count)
        bytes.append(contentsOf: value)
    }

    mutating func raw<C: Collection>(_ value: C) where C.Element == UInt8 {
        bytes.append(contentsOf: value)
    }
}
