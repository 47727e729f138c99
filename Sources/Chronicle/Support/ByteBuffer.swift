/// A fixed number of bytes on the heap, uninitialised until written, freed
/// with the buffer.
///
/// For buffers made per read (a journal cursor's look-ahead): a
/// `[UInt8](repeating:count:)` zero-fills its bytes and allocates through
/// the standard library's unspecialised path, which looks up its storage
/// type's metadata at run time — several hundred instructions a buffer,
/// more than reading one small commit. This is one allocation of a
/// non-generic class and one of the bytes.
///
/// `@unchecked Sendable`: its owner writes the bytes only while it holds
/// the only reference (`isKnownUniquelyReferenced`, as a copy-on-write
/// type does), so no thread reads bytes another one writes.
final class ByteBuffer: @unchecked Sendable {
    /// The bytes.
    let bytes: UnsafeMutableRawBufferPointer

    /// `count` bytes, not initialised. O(1).
    init(count: Int) {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(count, 1), alignment: 16)
    }

    deinit { bytes.deallocate() }

    /// The number of bytes.
    var count: Int { bytes.count }
}
