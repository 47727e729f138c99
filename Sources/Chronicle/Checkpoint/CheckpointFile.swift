import Foundation

/// The checkpoint file: one folded state, cached next to its journal.
///
/// Layout (integers little-endian; the directory and blocks use the
/// journal's binary codec):
///
/// ```
/// header:    magic "CHRNCKPT" · format u16 (4) · journal file id (16 bytes)
///            · version u64 · where the journal's record of `version` starts
///            u64 · the CRC32C that record's frame stores u32 (together: a
///            ``JournalPrefix``) · blocks length u64 · directory length u32
///            · CRC32C u32 of the header
/// blocks:    per object: key · primary key (with flag 1; −1 when not a
///            non-negative integer) · length of its values · one value per
///            property. At most 256 objects or about 32 KB a block; the
///            types' blocks follow each other in directory order.
/// directory: type count; per type: its TypeSchema, next key, object count,
///            flags (1: objects carry their integer primary key; 2: those
///            keys ascend), block count, and per group of 64 blocks (the
///            last may have fewer): its blocks' length in bytes, object
///            count, first key, first primary key (with flag 1), CRC32C u32
///            of its blocks' entries
///            · CRC32C u32 of the directory
/// entries:   per block, the types' in directory order, 36 bytes: offset
///            u64 (from the first block) · length u32 · object count u32 ·
///            first key i64 · first primary key i64 (−1 without flag 1) ·
///            CRC32C u32 of the block; they end the file
/// ```
///
/// The blocks come first so that the writer can write each piece of them
/// as it makes it: the directory and entries are known only at the end,
/// and the header, which gives where they start, is written last, at
/// offset 0 (the file is complete only once renamed into place, see
/// ``write(_:journal:afterStep:)``). Format 3 files are still read: their
/// header has no blocks length, the directory and entries follow it, and
/// the blocks follow the entries to the end of the file.
///
/// A file is used only when its header's and directory's checksums hold,
/// its file id is the journal's, its version is in the journal, and the
/// journal's record of that version is where the header says, with the
/// checksum it says. The journal then need not check the records the
/// checkpoint covers at open (``Journal/init(fileURL:durability:trusting:)``):
/// reading history checks them. A group's entries and a block are checked
/// when first read: at open for tables loaded whole, on first use for
/// tables loaded lazily (``CheckpointTable``). Anything that
/// fails at open is ignored (and the file rewritten later); a block that
/// fails later makes its table rebuild from the journal.
enum CheckpointFile {
    static let magic = Array("CHRNCKPT".utf8)
    /// The format the encoder writes.
    static let formatVersion: UInt16 = 4
    /// The formats a file is read in: 3 (the head before the blocks) and 4
    /// (the blocks right after the header, the directory and entries after
    /// them, so that the writer need not hold the file to put its head first).
    static let readableFormats: ClosedRange<UInt16> = 3...4

    /// Why a checkpoint file was not used.
    enum Rejection: Error, Equatable, CustomStringConvertible {
        case unreadable(String)
        case checksum
        case format(String)
        case otherJournal
        case beyondJournal(version: UInt64, journalVersion: UInt64)
        case fingerprint(version: UInt64)
        case invalidState(String)

        /// The rejection of a header, directory or group of entries that failed.
        init(_ failure: CheckpointLayout.Failure) {
            switch failure {
            case .checksum: self = .checksum
            case .format(let why): self = .format(why)
            }
        }

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
        URL(filePath: path(for: journalURL), directoryHint: .notDirectory)
    }

    /// The path of ``url(for:)``: the journal's path and a suffix. An open
    /// maps the file by it; making it with URL operations (the journal's
    /// directory, its last component) cost tens of thousands of
    /// instructions, a sixth of an open that reads one object.
    static func path(for journalURL: URL) -> String {
        journalURL.path + ".checkpoint"
    }

    /// The bytes of a checkpoint of `state`, folded from the journal whose
    /// prefix through `state.version` is `prefix`, in one buffer.
    /// - Complexity: O(size of the state).
    static func encode(_ state: StoreState, prefix: JournalPrefix) -> [UInt8] {
        var file: [UInt8] = []
        encode(state, prefix: prefix) { file.write($0, at: $1) }
        return file
    }

    /// ``encode(_:prefix:)`` handed to `sink` a piece at a time, each with
    /// its offset in the file, as ``write(_:journal:afterStep:)`` writes it:
    /// the blocks in pieces of about a megabyte as they are made, then the
    /// directory and entries after them, then the header at offset 0. The
    /// encoder holds one piece, never the file.
    /// - Complexity: O(size of the state).
    static func encode<Failure: Error>(_ state: StoreState, prefix: JournalPrefix,
                                       to sink: CheckpointEncoder.Sink<Failure>) throws(Failure) {
        var encoder = CheckpointEncoder(schema: state.schema, nextKeys: state.schema.indices.map { state.nextKey(table: $0).rawValue },
                                        schemaVersion: state.schemaVersion)
        for table in state.schema.indices {
            encoder.beginTable()
            for (key, record) in state.objects(table: table) {
                encoder.append(key: key.rawValue, record: record)
                if encoder.hasFullPiece { try encoder.writePiece(to: sink) }
            }
        }
        try encoder.finish(prefix: prefix, to: sink)
    }

    /// ``encode(_:prefix:)`` with `journal`'s prefix through `state.version`.
    /// - Throws: ``JournalError`` if the journal cannot be read there, or
    ///   ``JournalError/versionMismatch(expected:found:)`` if it does not hold that version.
    static func encode(_ state: StoreState, journal: Journal) throws(JournalError) -> [UInt8] {
        guard let prefix = try journal.prefix(through: state.version) else {
            throw .versionMismatch(expected: state.version, found: journal.lastVersion)
        }
        return encode(state, prefix: prefix)
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
    /// Call only as a writer of the journal. With a shared journal, one
    /// process at a time writes (an exclusive `flock` on
    /// `<checkpoint name>.lock`); the others wait their turn.
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
        guard let prefix = try journal.prefix(through: state.version) else { return false }
        let target = url(for: journalURL)
        // One process at a time: removing leftovers would take another
        // process's temporary file from under it.
        var alone: Int32?
        if journal.isShared {
            alone = ProcessWriteLock.lockAlone(path: target.path + ".lock")
            if alone == nil { return false }
        }
        defer { if let alone { _ = closeDescriptor(alone) } }
        FileReplacement.removeLeftovers(of: target)
        try FileReplacement.replace(at: target, afterStep: afterStep) { (file) throws(JournalError) in
            try encode(state, prefix: prefix) { (raw, offset) throws(JournalError) in try file.write(raw, at: offset) }
        }
        return true
    }

    // MARK: Reading

    /// A checkpoint file mapped and its header and directory checked, not
    /// yet matched against a journal: what a store reads before it opens the
    /// journal, so that the journal can trust the prefix the file covers.
    struct Candidate: Sendable {
        let file: MappedFile
        let layout: CheckpointLayout
    }

    /// The checkpoint file next to the journal at `journalURL`, or why it
    /// cannot be used. Maps the file and checks its header and directory:
    /// O(types + blocks / 64), whatever the size of the state.
    static func candidate(for journalURL: URL) -> Result<Candidate, Rejection> {
        let file: MappedFile
        do throws(JournalError) {
            file = try MappedFile(path: path(for: journalURL))
        } catch {
            return .failure(.unreadable("\(error)"))
        }
        return candidate(file)
    }

    private static func candidate(_ file: MappedFile) -> Result<Candidate, Rejection> {
        do throws(CheckpointLayout.Failure) {
            return .success(Candidate(file: file, layout: try CheckpointLayout(parsing: file.bytes)))
        } catch {
            return .failure(Rejection(error))
        }
    }

    /// The state in the checkpoint file of `journal`, or why it cannot be
    /// used. The file is mapped, not read: tables of at least
    /// `deferringFrom` objects that no link touches are left in it and read
    /// lazily (``CheckpointTable``); the others are decoded now.
    static func load(for journal: Journal, deferringFrom minimum: Int = .max) -> Result<StoreState, Rejection> {
        guard let journalURL = journal.fileURL else { return .failure(.unreadable("the journal is in memory")) }
        return candidate(for: journalURL).flatMap { decode($0, journal: journal, deferringFrom: minimum) }
    }

    /// Checks and decodes checkpoint bytes against `journal`, all of them now.
    static func decode(_ bytes: [UInt8], journal: Journal) -> Result<StoreState, Rejection> {
        decode(MappedFile(copying: bytes), journal: journal, deferringFrom: .max)
    }

    /// Checks and decodes the checkpoint in `file` against `journal`,
    /// deferring the tables ``load(for:deferringFrom:)`` says.
    static func decode(_ file: MappedFile, journal: Journal, deferringFrom minimum: Int) -> Result<StoreState, Rejection> {
        candidate(file).flatMap { decode($0, journal: journal, deferringFrom: minimum) }
    }

    /// Matches `candidate` against `journal` and decodes it, deferring the
    /// tables ``load(for:deferringFrom:)`` says.
    static func decode(_ candidate: Candidate, journal: Journal, deferringFrom minimum: Int) -> Result<StoreState, Rejection> {
        do throws(Rejection) {
            try check(candidate.layout.prefix, against: journal)
            return .success(try decode(candidate.file, layout: candidate.layout, journal: journal, deferringFrom: minimum))
        } catch {
            return .failure(error)
        }
    }

    /// Checks that `prefix` is `journal`'s: the same file, and the record of
    /// its version where it says with the checksum it says. O(1): a journal
    /// opened trusting this prefix checked it already; otherwise one frame
    /// header is read.
    private static func check(_ prefix: JournalPrefix, against journal: Journal) throws(Rejection) {
        guard prefix.fileID == journal.fileIdentifier else { throw .otherJournal }
        guard prefix.version > 0, prefix.version <= journal.lastVersion else {
            throw .beyondJournal(version: prefix.version, journalVersion: journal.lastVersion)
        }
        // Opened trusting a prefix of this version: the store's open passed
        // it this very prefix, which the journal checked as below.
        if journal.trustedPrefixVersion == prefix.version { return }
        let found: JournalPrefix?
        do throws(JournalError) {
            found = try journal.prefix(through: prefix.version)
        } catch {
            throw .unreadable("\(error)")
        }
        guard found == prefix else { throw .fingerprint(version: prefix.version) }
    }

    private static func decode(_ file: MappedFile, layout: CheckpointLayout, journal: Journal,
                               deferringFrom minimum: Int) throws(Rejection) -> StoreState {
        var state = StoreState()
        do throws(FoldError.Reason) {
            try state.restoreSchema(layout.tables.map(\.schema))
            for (table, entry) in layout.tables.enumerated() { try state.restoreNextKey(entry.nextKey, table: table) }
            state.schemaVersion = layout.schemaVersion
        } catch {
            throw .invalidState("\(error)")
        }
        let schemaOnly = state
        let linked = state.tablesTouchedByLinks()
        let recovery = CheckpointRecovery(journal: journal, version: layout.version)
        var links = [[(target: Int64, link: Backlink)]](repeating: [], count: layout.tables.count)
        for (table, entry) in layout.tables.enumerated() {
            if entry.count >= minimum, !linked.contains(table) {
                state.deferTable(table, to: CheckpointTable(table: table, layout: entry, file: file, schema: schemaOnly,
                                                             recovery: recovery))
            } else {
                try restoreTable(table, layout: entry, file: file, into: &state, links: &links)
            }
        }
        state.restoreBacklinks(links)
        do throws(FoldError.Reason) {
            try state.checkRestored()
        } catch {
            throw .invalidState("\(error)")
        }
        state.version = layout.version
        return state
    }

    /// Decodes every block of `table` into `state`, whose schema and next
    /// keys are restored, gathering the links its objects hold into `links`.
    /// - Throws: ``Rejection/checksum`` for a damaged block, else
    ///   ``Rejection/format(_:)`` or ``Rejection/invalidState(_:)``.
    static func restoreTable(_ table: Int, layout: CheckpointLayout.Table, file: MappedFile,
                             into state: inout StoreState, links: inout [[(target: Int64, link: Backlink)]]) throws(Rejection) {
        let blocks: [CheckpointLayout.Block]
        do throws(CheckpointLayout.Failure) {
            blocks = try layout.checkedBlocks(in: file.bytes)
        } catch {
            throw Rejection(error)
        }
        let verification = BlockVerification(blocks, of: file)
        do throws(Rejection) {
            try decodeTable(table, layout: layout, blocks: blocks, file: file.bytes, into: &state, links: &links)
        } catch {
            guard verification.wait() else { throw .checksum }
            throw error
        }
        guard verification.wait() else { throw .checksum }
    }

    /// ``restoreTable(_:layout:file:into:links:)`` but for the checksums.
    private static func decodeTable(_ table: Int, layout: CheckpointLayout.Table, blocks: [CheckpointLayout.Block],
                                    file: UnsafeRawBufferPointer,
                                    into state: inout StoreState, links: inout [[(target: Int64, link: Backlink)]]) throws(Rejection) {
        var restorer = TableRestorer(table: table, of: state, count: layout.count,
                                     primaryKeyField: layout.hasPrimaryKeyField, ascending: layout.primaryKeysAscend)
        do {
            for block in blocks {
                let bytes = UnsafeRawBufferPointer(rebasing: file[block.offset..<(block.offset + block.length)])
                var objects = CheckpointBlockReader(bytes, objects: block.objects, hasPrimaryKeyField: layout.hasPrimaryKeyField)
                var first = true
                while let object = try objects.next() {
                    // The directory's first keys are what lookups search by: they must be the block's.
                    if first, object.key != block.firstKey || object.primaryKey != block.firstPrimaryKey {
                        throw BinaryReader.Malformed(offset: block.offset, reason: "a block's first keys differ from its directory entry")
                    }
                    first = false
                    try restorer.decodeObject(key: object.key, primaryKeyField: object.primaryKey, values: object.values,
                                              checkingWith: state, links: &links)
                }
            }
            try restorer.finish(into: &state)
        } catch let rejection as Rejection {
            throw rejection
        } catch let reason as FoldError.Reason {
            throw .invalidState("\(reason)")
        } catch {
            throw .format("\(error)")
        }
    }

    /// What an object's primary-key field holds for primary key `value`:
    /// the value if it is a non-negative integer, else −1.
    static func primaryKeyField(_ value: PersistedValue) -> Int64 {
        if case .int(let integer) = value, integer >= 0 { return integer }
        return -1
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

    /// Steps over the next value: integers and strings without decoding
    /// them (a string's UTF-8 is not checked), anything else decoded. For
    /// reading one value of an object (``EncodedBlock``).
    static func skipValue(_ r: inout BinaryReader) throws(BinaryReader.Malformed) {
        switch r.peek() {
        case intTag?:
            _ = try r.byte()
            try r.skipVarint()
        case stringTag?:
            _ = try r.byte()
            _ = try r.bytes(try r.count(limit: r.remaining))
        default:
            _ = try EventCodec.decodeValue(&r)
        }
    }
}
