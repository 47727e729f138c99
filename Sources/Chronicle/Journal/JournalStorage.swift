/// The bytes behind a ``Journal``: a file (``JournalFile``) or memory
/// (``InMemoryStorage``). Offsets are absolute, header included, so both hold
/// exactly the same format and share all framing code.
protocol JournalStorage: Sendable {
    /// A path (or pseudo-path) for error messages.
    var path: String { get }
    /// The current size in bytes.
    func size() throws(JournalError) -> Int
    /// Reads into `buffer` from `offset` until the buffer is full or the end of
    /// the data; returns how many bytes were read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(JournalError) -> Int
    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(JournalError)
    /// Makes everything written so far durable.
    func sync() throws(JournalError)
    /// Cuts the data back to `size` bytes, durably.
    func truncate(to size: Int) throws(JournalError)
    /// Gives up the writer's lock (the storage stays readable).
    func unlock()
    /// Makes the storage `size` bytes long, zero-filled from `start` (the
    /// end of its data), durably; see ``JournalCore`` for why. Storage with
    /// nothing to gain does nothing.
    func reserve(from start: Int, to size: Int) throws(JournalError)
}

extension JournalStorage {
    /// Nothing: only a file gains from reserving space.
    func reserve(from start: Int, to size: Int) throws(JournalError) {}

    /// Whether the frame header at `offset` — the bytes of it the data
    /// holds — is all zeros: reserved space, where no record starts yet.
    /// Read into a stack buffer (a catch-up asks this once a commit).
    func frameHeaderIsZeros(at offset: Int) throws(JournalError) -> Bool {
        // Bytes past the end of the data are not read, and stay zeros.
        var head: UInt64 = 0
        _ = try withUnsafeMutableBytes(of: &head) { raw throws(JournalError) -> Int in
            try self.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[..<JournalFormat.frameHeaderSize]), at: offset)
        }
        return head == 0
    }

    /// Whether the bytes from `start` to `end` are all zeros: space a
    /// syncing writer reserved ahead of its data (``JournalCore``'s
    /// `reserve`), where no record was ever written, rather than a torn
    /// one. Stops at the first byte that is not zero.
    /// - Complexity: O(`end` − `start`), read 64 KB at a time.
    func isZeros(from start: Int, to end: Int) throws(JournalError) -> Bool {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: min(64 * 1024, max(end - start, 1)), alignment: 16)
        defer { chunk.deallocate() }
        var offset = start
        while offset < end {
            let wanted = min(chunk.count, end - offset)
            let read = try self.read(into: UnsafeMutableRawBufferPointer(rebasing: chunk[..<wanted]), at: offset)
            if read == 0 { return true }
            // Eight bytes at a time where the chunk allows; the loop is
            // over page-cache reads of at most the reservation's megabyte.
            let words = read / 8
            let wordsAreZero = chunk.baseAddress.unsafelyUnwrapped.withMemoryRebound(to: UInt64.self, capacity: words) { base in
                UnsafeBufferPointer(start: base, count: words).allSatisfy { $0 == 0 }
            }
            guard wordsAreZero, chunk[(words * 8)..<read].allSatisfy({ $0 == 0 }) else { return false }
            offset += read
        }
        return true
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the data).
    func read(count: Int, at offset: Int) throws(JournalError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = try bytes.withMutableBytes { raw throws(JournalError) -> Int in try self.read(into: raw, at: offset) }
        bytes.removeLast(count - read)
        return bytes
    }
}
