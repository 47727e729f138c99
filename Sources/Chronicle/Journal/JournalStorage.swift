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

    /// Up to `count` bytes from `offset` (fewer at the end of the data).
    func read(count: Int, at offset: Int) throws(JournalError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = try bytes.withMutableBytes { raw throws(JournalError) -> Int in try self.read(into: raw, at: offset) }
        bytes.removeLast(count - read)
        return bytes
    }
}
