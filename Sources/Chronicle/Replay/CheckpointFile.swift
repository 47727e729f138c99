import Dispatch
import Foundation

/// The checkpoint file: one folded state, cached next to its journal.
///
/// Layout (integers little-endian; the body uses the journal's binary codec):
///
/// ```
/// magic "CHRNCKPT" · format u16 · journal file id (16 bytes) · version u64
/// · fingerprint u32 (CRC32C of the encoded commit at `version`)
/// · body: type count; per type: its TypeSchema and next key; then per
///         type: object count, and per object: key and one value per property
/// · CRC32C u32 of everything before it
/// ```
///
/// A file is used only when its checksum holds, its file id is the
/// journal's, its version is in the journal, the journal's commit at that
/// version has the recorded fingerprint, and its state passes the fold's
/// own checks. Anything else is ignored (and the file rewritten later).
enum CheckpointFile {
    static let magic = Array("CHRNCKPT".utf8)
    static let formatVersion: UInt16 = 1

    /// Why a checkpoint file was not used.
    enum Rejection: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case checksum
        case format(String)
        case otherJournal
        case beyondJournal(version: UInt64, journalVersion: UInt64)
        case fingerprint(version: UInt64)
        case invalidState(String)

        /// Whether the file could not be read at all (usually: there is none yet).
        var isMissingFile: Bool { if case .unreadable = self { true } else { false } }

        var description: String {
            switch self {
            case .unreadable(let why): "cannot read it: \(why)"
            case .checksum: "its checksum does not match its contents"
            case .format(let why): "it is malformed: \(why)"
            case .otherJournal: "it belongs to another journal (file identifiers differ)"
            case let .beyondJournal(version, journalVersion): "it is at version \(version), beyond the journal's \(journalVersion)"
            case .fingerprint(let version): "the journal's commit \(version) is not the one it was made from"
            case .invalidState(let why): "its state is invalid: \(why)"
            }
        }
    }

    /// The checkpoint file of the journal at `journalURL`.
    static func url(for journalURL: URL) -> URL {
        journalURL.deletingLastPathComponent().appendingPathComponent(journalURL.lastPathComponent + ".checkpoint")
    }

    /// The fingerprint of a commit: the CRC32C of its encoding.
    static func fingerprint(_ commit: Commit) -> UInt32 { CRC32C.checksum(EventCodec.encode(commit)) }

    // MARK: Writing

    /// The bytes of a checkpoint of `state`, whose version's commit is `commit`.
    /// - Complexity: O(size of the state).
    static func encode(_ state: StoreState, journalID: UUID, commit: Commit) -> [UInt8] {
        var w = BinaryWriter(capacity: 1 << 16)
        w.raw(magic)
        w.fixed16(formatVersion)
        w.raw(withUnsafeBytes(of: journalID.uuid) { Array($0) })
        w.fixed64(state.version)
        w.fixed32(fingerprint(commit))
        w.varint(state.schema.count)
        for (table, type) in state.schema.enumerated() {
            EventCodec.encode(type, into: &w)
            w.signed(state.nextKey(table: table).rawValue)
        }
        for table in state.schema.indices {
            w.varint(state.count(table: table))
            for (key, record) in state.objects(table: table) {
                w.signed(key.rawValue)
                for value in record.values { EventCodec.encode(value, into: &w) }
            }
        }
        w.fixed32(CRC32C.checksum(w.bytes))
        return w.bytes
    }

    /// Writes a checkpoint of `state` next to the journal, atomically and
    /// durably (``FileReplacement/replace(at:afterStep:write:)``), so a
    /// crash leaves the old checkpoint file, or none, or the new one whole,
    /// never a partial file under the real name. Removes what earlier
    /// interrupted writes left. The journal file itself is only read.
    ///
    /// The journal is synced first: a checkpoint durable ahead of the commit
    /// it names would, after a power loss, name a commit the journal lost.
    /// (It would be rejected, but it would cost the next open a full fold.)
    ///
    /// Call only as the journal's writer (the one process that may replace
    /// its checkpoint file), one write at a time.
    ///
    /// - Returns: whether a file was written (not for an empty state or an
    ///   in-memory or read-only journal).
    /// - Throws: ``JournalError`` from syncing, reading or writing.
    /// - Complexity: O(size of the state).
    @discardableResult
    static func write(_ state: StoreState, journal: Journal,
                      afterStep: ((FileReplacementStep) throws(JournalError) -> Void)? = nil) throws(JournalError) -> Bool {
        guard let journalURL = journal.fileURL, !journal.isReadOnly, state.version > 0 else { return false }
        try journal.sync()
        var reader = journal.reader(from: state.version)
        guard let commit = try reader.next(), commit.version == state.version else { return false }
        let bytes = encode(state, journalID: journal.fileIdentifier, commit: commit)
        let target = url(for: journalURL)
        FileReplacement.removeLeftovers(of: target)
        try FileReplacement.replace(at: target, afterStep: afterStep) { (file) throws(JournalError) in
            try bytes.withBytes { (raw) throws(JournalError) in try file.write(raw, at: 0) }
        }
        return true
    }

    // MARK: Reading

    /// The state in the checkpoint file of `journal`, or why it cannot be used.
    static func load(for journal: Journal) -> Result<StoreState, Rejection> {
        guard let journalURL = journal.fileURL else { return .failure(.unreadable("the journal is in memory")) }
        // Read straight into the array the decoder takes: through `Data`,
        // the file was read once and then copied.
        let bytes: [UInt8]
        do throws(JournalError) {
            let file = try JournalFile.openForReading(url(for: journalURL))
            let size = try file.size()
            bytes = try [UInt8](unsafeUninitializedCapacity: size) { (buffer, count) throws(JournalError) in
                count = try file.read(into: UnsafeMutableRawBufferPointer(buffer), at: 0)
            }
        } catch {
            return .failure(.unreadable("\(error)"))
        }
        return decode(bytes, journal: journal)
    }

    /// Checks and decodes checkpoint bytes against `journal`.
    static func decode(_ bytes: [UInt8], journal: Journal) -> Result<StoreState, Rejection> {
        let headerSize = magic.count + 2 + 16 + 8 + 4
        guard bytes.count >= headerSize + 4 else { return .failure(.format("only \(bytes.count) bytes")) }
        return bytes.withUnsafeBytes { raw -> Result<StoreState, Rejection> in
            let body = UnsafeRawBufferPointer(rebasing: raw[..<(bytes.count - 4)])
            let stored = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: bytes.count - 4, as: UInt32.self))
            // The checksum runs on a second core while this one decodes: the
            // decoder withstands any bytes (it must, for files with a valid
            // checksum and hostile contents), and a file whose checksum fails
            // is rejected as such whatever decoding made of it.
            //
            // On a thread of its own, not a Dispatch global queue: the caller
            // may itself be on one (or on Swift's cooperative pool), and
            // waiting there for work queued behind it could stall on a small
            // machine. Small files are checked in line (a thread costs more).
            let shared = ReadOnlyBytes(bytes: body)
            let computed = Locked<UInt32>(0)
            let checking = DispatchGroup()
            if body.count >= 1 << 20 {
                checking.enter()
                Thread {
                    computed.withLock { $0 = CRC32C.checksum(shared.bytes) }
                    checking.leave()
                }.start()
            } else {
                computed.withLock { $0 = CRC32C.checksum(body) }
            }
            var r = BinaryReader(body)
            let decoded: Result<StoreState, Rejection>
            do throws(Rejection) {
                decoded = .success(try decode(&r, journal: journal))
            } catch {
                decoded = .failure(error)
            }
            checking.wait()
            return stored == computed.withLock({ $0 }) ? decoded : .failure(.checksum)
        }
    }

    /// A file's bytes, for the task that checksums them.
    // Safe to share: the bytes are only read, and `decode(_:journal:)` waits
    // for that task before the buffer goes.
    private struct ReadOnlyBytes: @unchecked Sendable {
        let bytes: UnsafeRawBufferPointer
    }

    /// ``EventCodec``'s tags of the two commonest values (a test holds them to it).
    static let intTag: UInt8 = 3
    static let stringTag: UInt8 = 6

    /// ``EventCodec/decodeValue(_:depth:)``, with the commonest values
    /// decoded here, without its general dispatch.
    static func decodeValue(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> PersistedValue {
        switch r.peek() {
        case intTag?:
            _ = try r.byte()
            return .int(try r.signed())
        case stringTag?:
            _ = try r.byte()
            return .string(try r.string())
        default:
            return try EventCodec.decodeValue(&r)
        }
    }

    private static func decode(_ r: inout BinaryReader, journal: Journal) throws(Rejection) -> StoreState {
        let journalID: UUID, version: UInt64, fingerprint: UInt32
        do throws(BinaryReader.Malformed) {
            guard Array(try r.bytes(magic.count)) == magic else { throw r.fail("not a checkpoint file") }
            let format = try r.bytes(2)
            guard format[0] == UInt8(formatVersion & 0xFF), format[1] == UInt8(formatVersion >> 8) else {
                throw r.fail("unknown checkpoint format")
            }
            let id = Array(try r.bytes(16))
            journalID = UUID(uuid: (id[0], id[1], id[2], id[3], id[4], id[5], id[6], id[7],
                                    id[8], id[9], id[10], id[11], id[12], id[13], id[14], id[15]))
            version = try r.fixed64()
            fingerprint = try r.fixed32()
        } catch {
            throw .format("\(error)")
        }
        guard journalID == journal.fileIdentifier else { throw .otherJournal }
        guard version > 0, version <= journal.lastVersion else {
            throw .beyondJournal(version: version, journalVersion: journal.lastVersion)
        }
        var reader = journal.reader(from: version)
        do {
            guard let commit = try reader.next(), self.fingerprint(commit) == fingerprint else {
                throw Rejection.fingerprint(version: version)
            }
        } catch let rejection as Rejection {
            throw rejection
        } catch {
            throw .unreadable("\(error)")
        }
        var state = StoreState()
        do {
            let typeCount = try r.count(limit: r.remaining)
            var types: [TypeSchema] = []
            var nextKeys: [Int64] = []
            for _ in 0..<typeCount {
                types.append(try EventCodec.decodeSchema(&r))
                nextKeys.append(try r.signed())
            }
            try state.restoreSchema(types)
            for (table, nextKey) in nextKeys.enumerated() { try state.restoreNextKey(nextKey, table: table) }
            var links = [[(target: Int64, link: Backlink)]](repeating: [], count: types.count)
            for (table, type) in types.enumerated() {
                let propertyCount = type.properties.count
                // Each object takes at least a byte for its key and one per value.
                let count = try r.count(limit: r.remaining / (1 + propertyCount))
                var restorer = TableRestorer(table: table, of: state, count: count)
                for _ in 0..<count { try restorer.decodeObject(&r, checkingWith: state, links: &links) }
                try restorer.finish(into: &state)
            }
            state.restoreBacklinks(links)
            guard r.isAtEnd else { throw r.fail("\(r.remaining) bytes after the state") }
            try state.checkRestored()
        } catch let reason as FoldError.Reason {
            throw .invalidState("\(reason)")
        } catch {
            throw .format("\(error)")
        }
        state.version = version
        return state
    }
}
