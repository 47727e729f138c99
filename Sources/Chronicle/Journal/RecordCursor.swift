import Foundation

/// Walks the records of a journal's storage in order, reading through a
/// buffer (never the whole file), checking each record's framing and checksum
/// and decoding its commit.
///
/// It never allocates more than the bytes that remain before `end`: a record
/// length is checked against them before anything is read.
struct RecordCursor: Sendable {
    /// What the next record turned out to be, with what was decoded of it.
    enum Record<Payload> {
        /// No bytes remain.
        case end
        /// A whole, checksummed record that starts at `start`, and what its
        /// payload decoded to (a commit, or only its version).
        case record(Payload, start: Int)
        /// The bytes at `start` are not a whole record with a matching checksum
        /// (a torn write, zeros, garbage, or damage).
        case badFrame(start: Int, reason: String)
        /// The record at `start` is whole and its checksum matches, but its
        /// payload is not a commit this build can decode.
        case badPayload(start: Int, reason: String)
        /// The record at `start` is whole and its checksum matches, and its
        /// payload holds a tag this build does not know: a newer Chronicle
        /// wrote it. Never damage, never a torn tail: nobody may cut it.
        case newerPayload(start: Int, reason: String)
    }

    /// The most a read fetches ahead of what is asked.
    static let chunkSize = 128 * 1024
    /// The first read's look-ahead, doubled at each refill up to
    /// ``chunkSize``: a catch-up that finds one small commit after the last
    /// known record (the common case with several processes) reads and
    /// allocates a few KiB, not 128, while a scan of the whole file soon
    /// reads in full chunks.
    static let firstChunkSize = 4 * 1024

    let storage: any JournalStorage
    /// Where the next record starts.
    private(set) var offset: Int
    /// The end of the data the cursor may read.
    let end: Int
    private var buffer = ByteBuffer(count: 0)
    /// The file offset of the buffer's first byte, and how many buffered bytes are valid.
    private var bufferStart = 0
    private var bufferCount = 0
    /// The look-ahead of the next refill.
    private var chunk = Self.firstChunkSize

    init(storage: any JournalStorage, from offset: Int, to end: Int) {
        self.storage = storage
        self.offset = offset
        self.end = end
    }

    /// A record with its whole commit decoded.
    typealias Outcome = Record<Commit>

    /// Reads the record at the cursor and, if it is a commit, moves past it.
    mutating func next() throws(JournalError) -> Outcome {
        var keep = KeepCreateValues()
        return try next(creates: &keep)
    }

    /// ``next()``, decoding the commit's `.create` events' values into
    /// `creates` (see ``CreateValuesReceiver``). On anything but a record,
    /// `creates` may hold some of the commit's values: drop it.
    mutating func next<Creates: CreateValuesReceiver>(creates: inout Creates) throws(JournalError) -> Outcome {
        try next { payload throws(BinaryReader.Malformed) in try EventCodec.decodeCommit(payload, creates: &creates) }
    }

    /// Reads the record at the cursor, decoding only the version its commit
    /// carries, and moves past it if the checksum matches. Opening a journal
    /// uses it: checking framing, checksums and versions needs no events,
    /// and a store that opens from a checkpoint never reads the events
    /// before it.
    mutating func nextVersion() throws(JournalError) -> Record<UInt64> {
        try next { payload throws(BinaryReader.Malformed) in try EventCodec.decodeVersion(payload) }
    }

    private mutating func next<Payload>(
        _ decode: (UnsafeRawBufferPointer) throws(BinaryReader.Malformed) -> Payload
    ) throws(JournalError) -> Record<Payload> {
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
        let held = buffer
        let result = withExtendedLifetime(held) { () -> Result<Payload, BinaryReader.Malformed>? in
            let payload = UnsafeRawBufferPointer(rebasing: held.bytes[(payloadStart - bufferStart)...].prefix(length))
            guard JournalFormat.checksum(length: UInt32(length), payload: payload) == stored else { return nil }
            return Result { () throws(BinaryReader.Malformed) -> Payload in try decode(payload) }
        }
        switch result {
        case nil:
            return .badFrame(start: start, reason: "the record's checksum does not match its contents")
        case .failure(let malformed)? where malformed.isUnknownTag:
            return .newerPayload(start: start, reason: "\(malformed.reason) at byte \(malformed.offset) of the commit")
        case .failure(let malformed)?:
            return .badPayload(start: start, reason: "the record's checksum matches but its commit does not decode (\(malformed))")
        case .success(let payload)?:
            offset = payloadStart + length
            return .record(payload, start: start)
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

    /// What ``validRecord(after:)`` found after a bad frame.
    enum FollowingRecord: Equatable {
        /// No whole record with a matching checksum starts after it.
        case none
        /// One does, at this offset (valid data follows: damage).
        case found(Int)
        /// More candidate records were pending at once than the search may
        /// keep track of (only crafted input gets here); it cannot rule out
        /// valid data, so the caller must not cut anything.
        case undecided(pendingLimit: Int)
    }

    /// How many candidate records the search keeps pending at once
    /// (24 bytes each). Random bytes stay far below it: a torn tail of
    /// 100 MB of random data has about a million candidates in all.
    static let pendingLimit = 1 << 20

    /// Whether a whole record with a matching checksum starts at any byte after
    /// `start`. Used to tell a torn tail (no) from damage in the middle (yes).
    ///
    /// Every byte after `start` is a candidate whose length field is
    /// plausible (non-zero, within the record limit and the data). Checking
    /// each candidate's checksum by reading its payload would cost the sum of
    /// their lengths: quadratic in the tail for random bytes and for crafted
    /// files (a 1 MiB file could keep the open busy for minutes). Instead one
    /// pass computes the running CRC32C of the bytes after `start`; a
    /// candidate's checksum follows from the running CRCs at its payload's
    /// start and end by CRC combination (``CRC32C/combine(_:_:lengthB:)``),
    /// and is checked when the pass reaches its end.
    ///
    /// - Complexity: O(*n*) in the bytes after `start`, plus O(log *n*) per
    ///   candidate; memory O(candidates pending at once), at most
    ///   ``pendingLimit``.
    mutating func validRecord(after start: Int, pendingLimit: Int = Self.pendingLimit) throws(JournalError) -> FollowingRecord {
        struct Pending {
            var candidate: Int
            var payloadStart: Int
            var length: Int
            var stored: UInt32
            var lengthCRC: UInt32
        }
        struct Waiting {
            var candidate: Int
            /// The candidate's checksum, but for XOR-ing in the running CRC at `end`.
            var partial: UInt32
            var stored: UInt32
        }
        var starting: [Pending] = []   // by payload start (FIFO, as candidates are found in order)
        var startingHead = 0
        var ending = MinHeap<Waiting>()   // by payload end
        var found: Int?
        func note(_ candidate: Int) { if found == nil || candidate < found! { found = candidate } }

        let base = start + 1
        let frame = JournalFormat.frameHeaderSize
        var crc: UInt32 = 0            // CRC32C of bytes [base, position)
        var position = base
        var scratch = [UInt8](repeating: 0, count: Self.chunkSize + frame - 1)
        let storage = self.storage

        // Checks the candidates whose payload starts or ends at `position`.
        func settle() {
            while startingHead < starting.count, starting[startingHead].payloadStart == position {
                let next = starting[startingHead]
                startingHead += 1
                let shift = CRC32C.shiftOperator(bytes: next.length)
                ending.insert(Waiting(candidate: next.candidate, partial: CRC32C.multiplyModP(shift, next.lengthCRC ^ crc),
                                      stored: next.stored), key: next.payloadStart + next.length)
            }
            if startingHead > 4096 && startingHead * 2 > starting.count {
                starting.removeFirst(startingHead)
                startingHead = 0
            }
            while let (key, top) = ending.min, key == position {
                ending.removeMin()
                if top.partial ^ crc == top.stored { note(top.candidate) }
            }
        }

        while position < end {
            let chunkStart = position
            let chunkEnd = min(chunkStart + Self.chunkSize, end)
            let wanted = min(scratch.count, end - chunkStart)
            let read = try scratch.withMutableBytes { raw throws(JournalError) -> Int in
                try storage.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<wanted]), at: chunkStart)
            }
            guard read == wanted else {
                throw .io(operation: "read (the journal shrank while it was scanned)", errno: EIO, path: storage.path)
            }
            // Candidates in this chunk (the lookahead holds their frame headers).
            scratch.withUnsafeBytes { raw in
                var i = chunkStart
                while i < chunkEnd && end - i >= frame {
                    let at = i - chunkStart
                    let length = Int(raw.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)
                    if length > 0, length <= JournalFormat.maximumPayload, length <= end - i - frame {
                        let stored = raw.loadUnaligned(fromByteOffset: at + 4, as: UInt32.self).littleEndian
                        let lengthCRC = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[at..<at + 4]))
                        starting.append(Pending(candidate: i, payloadStart: i + frame, length: length,
                                                stored: stored, lengthCRC: lengthCRC))
                    }
                    i += 1
                }
            }
            if starting.count - startingHead + ending.count > pendingLimit {
                return .undecided(pendingLimit: pendingLimit)
            }
            // The running CRC, stopping wherever a candidate's payload starts or ends.
            while true {
                settle()
                if position == chunkEnd { break }
                var next = chunkEnd
                if startingHead < starting.count { next = min(next, starting[startingHead].payloadStart) }
                if let top = ending.min { next = min(next, top.key) }
                crc = scratch.withUnsafeBytes { raw in
                    CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[(position - chunkStart)..<(next - chunkStart)]), continuing: crc)
                }
                position = next
            }
        }
        settle()
        if let found { return .found(found) }
        return .none
    }

    /// Makes bytes `[offset, offset + count)` available in the buffer; `false`
    /// if the storage holds fewer bytes than that. `offset + count <= end`.
    private mutating func fill(_ offset: Int, _ count: Int) throws(JournalError) -> Bool {
        if offset >= bufferStart && offset + count <= bufferStart + bufferCount { return true }
        let wanted = min(max(count, chunk), end - offset)
        chunk = min(chunk * 2, Self.chunkSize)
        // A copy of the cursor may share the buffer: never written then.
        if buffer.count < wanted || !isKnownUniquelyReferenced(&buffer) { buffer = ByteBuffer(count: max(wanted, buffer.count)) }
        let read = try storage.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer.bytes[0..<wanted]), at: offset)
        bufferStart = offset
        bufferCount = read
        return read >= count
    }

    private func load32(_ offset: Int) -> UInt32 {
        UInt32(littleEndian: buffer.bytes.loadUnaligned(fromByteOffset: offset - bufferStart, as: UInt32.self))
    }
}

/// A binary min-heap of elements ordered by an integer key.
struct MinHeap<Element> {
    private var elements: [(key: Int, element: Element)] = []

    var count: Int { elements.count }
    var min: (key: Int, element: Element)? { elements.first }

    mutating func insert(_ element: Element, key: Int) {
        elements.append((key, element))
        var child = elements.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard elements[child].key < elements[parent].key else { break }
            elements.swapAt(child, parent)
            child = parent
        }
    }

    mutating func removeMin() {
        guard !elements.isEmpty else { return }
        elements.swapAt(0, elements.count - 1)
        elements.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < elements.count && elements[left].key < elements[smallest].key { smallest = left }
            if right < elements.count && elements[right].key < elements[smallest].key { smallest = right }
            if smallest == parent { return }
            elements.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
