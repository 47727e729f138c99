/// `withUnsafeBytes` that keeps a typed error (the standard library's version
/// is `rethrows`, which erases `throws(E)` to `any Error`), and a write at an
/// offset, for building in memory what is otherwise written to a file.
extension Array where Element == UInt8 {
    /// Writes `raw` at `offset`, as a file write would: over the bytes
    /// there, zero-filling any gap past the end. O(`raw.count`), amortised.
    mutating func write(_ raw: UnsafeRawBufferPointer, at offset: Int) {
        if count < offset + raw.count { append(contentsOf: repeatElement(0, count: offset + raw.count - count)) }
        withUnsafeMutableBytes { UnsafeMutableRawBufferPointer(rebasing: $0[offset..<(offset + raw.count)]).copyMemory(from: raw) }
    }

    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result = withUnsafeBytes { raw in Result { () throws(E) -> R in try body(raw) } }
        return try result.get()
    }

    mutating func withMutableBytes<R, E: Error>(_ body: (UnsafeMutableRawBufferPointer) throws(E) -> R) throws(E) -> R {
        let result = withUnsafeMutableBytes { raw in Result { () throws(E) -> R in try body(raw) } }
        return try result.get()
    }
}
