/// Walks the records of a journal's storage in order, reading through a
/// buffer (never the whole file), checking each record's framing and checksum
/// and decoding its commit.
///
/// It never allocates more than the bytes that remain before `end`: a record
/// length is checked against them before anything is read.
struct RecordCursor: Sendable {
    /// What the next record turned out to be.
    enum Outcome {
        /// No bytes remain.
        case end
        /// A whole, checksummed, decodable commit that starts at `start`.
        case commit(Commit, start: Int)
        /// The bytes at `start` are not a whole record with a matching checksum
        /// (a torn write, zeros, garbage, or damage).
        case badFrame(start: Int, reason: String)
        /// The record at `start` is whole and its checksum matches, but its
        /// payload is not a commit this build can decode.
        case badPayload(start: Int, reason: String)
    }

    static let chunkSize = 128 * 1024

    let storage: any JournalStorage
    /// Where the next record starts.
    private(set) var offset: Int
    /// The end of the data the cursor may read.
    let end: Int
    private var buffer: [UInt8] = []
    /// The file offset of `buffer[0]`, and how many buffered bytes are valid.
    private var bufferStart = 0
    private var bufferCount = 0

    init(storage: any JournalStorage, from offset: Int, to end: Int) {
        self.storage = storage
        self.offset = offset
        self.end = end
    }

    /// Reads the record at the cursor and, if it is a commit, moves past it.
    mutating func next() throws(JournalError) -> Outcome {
        let start = offset
        guard start < end else { return .end }
        guard let length = try frameLength(at: start) else {
            return .badFrame(start: start, reason: invalidFrameReason(at: start))
        }
        let stored = load32(start + 4)
        let payloadStart = start + JournalFormat.frameHeaderSize
        guard try fill(payloadStart, length) else {
            return .badFrame(start: start, reason: "the file ended while the record was read")
        }
        let result = buffer.withUnsafeBytes { raw -> Result<Commit, BinaryReader.Malformed>? in
            let payload = UnsafeRawBufferPointer(rebasing: raw[(payloadStart - bufferStart)...].prefix(length))
            guard JournalFormat.checksum(length: UInt32(length), payload: payload) == stored else { return nil }
            return Result { () throws(BinaryReader.Malformed) -> Commit in try EventCodec.decodeCommit(payload) }
        }
        switch result {
        case nil:
            return .badFrame(start: start, reason: "the record's checksum does not match its contents")
        case .failure(let malformed)?:
            return .badPayload(start: start, reason: "the record's checksum matches but its commit does not decode (\(malformed))")
        case .success(let commit)?:
            offset = payloadStart + length
            return .commit(commit, start: start)
        }
    }

    /// The payload length of a plausible frame at `start`: one whose length is
    /// non-zero, within the record limit and within the data. `nil` otherwise.
    private mutating func frameLength(at start: Int) throws(JournalError) -> Int? {
        guard end - start >= JournalFormat.frameHeaderSize,
              try fill(start, JournalFormat.frameHeaderSize) else { return nil }
        let length = Int(load32(start))
        guard length > 0, length <= JournalFormat.maximumPayload,
              length <= end - start - JournalFormat.frameHeaderSize else { return nil }
        return length
    }

    private mutating func invalidFrameReason(at start: Int) -> String {
        let remaining = end - start
        guard remaining >= JournalFormat.frameHeaderSize else {
            return "only \(remaining) bytes remain, too few for a record header"
        }
        let length = Int(load32(start))
        if length == 0 { return "the record length is zero" }
        if length > JournalFormat.maximumPayload { return "the record length \(length) exceeds the \(JournalFormat.maximumPayload)-byte limit" }
        return "the record length \(length) runs past the end of the journal (\(remaining - JournalFormat.frameHeaderSize) bytes remain)"
    }

    /// Whether a whole record with a matching checksum starts at any byte after
    /// `start`. Used to tell a torn tail (no) from damage in the middle (yes).
    ///
    /// - Complexity: O(*n*) in the bytes after `start` for the frame checks,
    ///   plus the checksum of each plausible candidate.
    mutating func validRecord(after start: Int) throws(JournalError) -> Int? {
        var candidate = start + 1
        while end - candidate >= JournalFormat.frameHeaderSize {
            if let length = try frameLength(at: candidate),
               try checksumMatches(at: candidate, length: length) {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    /// Streams a candidate's payload through CRC32C without disturbing the
    /// main buffer, 64 KiB at a time.
    private func checksumMatches(at start: Int, length: Int) throws(JournalError) -> Bool {
        let stored = load32(start + 4)
        var crc = withUnsafeBytes(of: UInt32(length).littleEndian) { CRC32C.checksum($0) }
        var scratch = [UInt8](repeating: 0, count: min(length, 64 * 1024))
        var position = start + JournalFormat.frameHeaderSize
        let payloadEnd = position + length
        while position < payloadEnd {
            let count = min(scratch.count, payloadEnd - position)
            let read = try scratch.withMutableBytes { raw throws(JournalError) -> Int in
                try storage.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: position)
            }
            guard read == count else { return false }
            crc = scratch.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[0..<count]), continuing: crc) }
            position += count
        }
        return crc == stored
    }

    /// Makes bytes `[offset, offset + count)` available in the buffer; `false`
    /// if the storage holds fewer bytes than that. `offset + count <= end`.
    private mutating func fill(_ offset: Int, _ count: Int) throws(JournalError) -> Bool {
        if offset >= bufferStart && offset + count <= bufferStart + bufferCount { return true }
        let wanted = min(max(count, Self.chunkSize), end - offset)
        if buffer.count < wanted { buffer = [UInt8](repeating: 0, count: wanted) }
        let storage = self.storage
        let read = try buffer.withMutableBytes { raw throws(JournalError) -> Int in
            try storage.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]), at: offset)
        }
        bufferStart = offset
        bufferCount = read
        return read >= count
    }

    private func load32(_ offset: Int) -> UInt32 {
        let i = offset - bufferStart
        return UInt32(buffer[i]) | UInt32(buffer[i + 1]) << 8 | UInt32(buffer[i + 2]) << 16 | UInt32(buffer[i + 3]) << 24
    }
}
