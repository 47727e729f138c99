import Foundation

/// An append-only log of ``Commit``s: the single source of truth of a store.
///
/// A journal lives in a file (``init(fileURL:durability:)``), is read without
/// taking it over (``init(contentsOf:)``), or lives in memory for tests
/// (``inMemory(durability:)``). All three hold the format the
/// <doc:JournalFormat> article documents, and share one interface.
///
/// Appending is thread-safe. Commits carry gap-free versions starting at 1; a
/// commit is either wholly in the journal or not at all. After a failed write
/// or sync the journal is *failed*: appends throw
/// ``JournalError/failed(reason:)``, reads keep working.
///
/// Opening scans the whole journal (checksums, decoding, versions) and keeps
/// an index of where each commit starts (8 bytes a commit), so reading from
/// any version seeks straight to it.
public final class Journal: Sendable {
    /// The journal's file, or `nil` for an in-memory journal.
    public let fileURL: URL?
    /// How appends are made durable.
    public let durability: Durability
    /// Whether the journal was opened with ``init(contentsOf:)``.
    public let isReadOnly: Bool
    /// The random 16-byte id written into the header when the journal was created.
    public let fileIdentifier: UUID
    /// The bytes of torn tail found when the journal was opened: cut from the
    /// file by ``init(fileURL:durability:)``, left in place and not read by
    /// ``init(contentsOf:)``. Zero for a cleanly closed journal.
    ///
    /// Zeros after the last commit are not a torn tail and count as none:
    /// a journal that syncs zero-fills space ahead of its data while it is
    /// open (see the "Reliability" article), so a reader of a journal in
    /// use, or of one whose writer was killed, finds them there. An open
    /// for writing that has the file to itself still cuts them.
    public let discardedTailBytes: Int
    /// The version before the journal's first commit: 0 for a journal that
    /// holds its whole history, the compaction point for one written by
    /// `Store.compact(keepingLast:)` (its first commit, version
    /// `baseVersion + 1`, is a snapshot of the state at that version).
    public let baseVersion: UInt64
    /// The last version of the prefix this journal was opened trusting
    /// (``init(fileURL:durability:trusting:)``), or `nil` if opening scanned
    /// every record (no prefix was given, or it did not fit the file).
    let trustedPrefixVersion: UInt64?

    let core: JournalCore

    /// Whether opening synced the file (or cut a torn tail, which syncs):
    /// always for an exclusive open; for a sharing one, unless a recorded
    /// sync of the file ended exactly at its end. For tests.
    let syncedAtOpen: Bool

    private init(fileURL: URL?, durability: Durability, isReadOnly: Bool, scan: JournalScan, storage: any JournalStorage,
                 processLock: ProcessWriteLock? = nil, sharedArea: SharedJournalArea? = nil, syncedAtOpen: Bool = false) {
        self.fileURL = fileURL
        self.syncedAtOpen = syncedAtOpen
        self.durability = durability
        self.isReadOnly = isReadOnly
        fileIdentifier = scan.fileID
        discardedTailBytes = scan.tailIsZeros ? 0 : scan.tornBytes
        baseVersion = scan.baseVersion
        trustedPrefixVersion = scan.unscanned?.version
        var hasFlusher = false
        if case .batched = durability, !isReadOnly { hasFlusher = true }
        var reserves = false
        if !isReadOnly, storage is JournalFile, durability != .none { reserves = true }
        core = JournalCore(storage: storage, baseVersion: scan.baseVersion, unscanned: scan.unscanned, offsets: scan.offsets,
                           end: scan.end, hasFlusher: hasFlusher, reserves: reserves, processLock: processLock,
                           sharedArea: sharedArea.map { ($0, scan.fileID) })
        if case .batched(let maxDelay, _) = durability, !isReadOnly {
            let core = self.core
            let flusher = Thread {
                core.groupCommit.runFlusher(maxDelay: maxDelay) { (version) throws(JournalError) in try core.sync(through: version) }
            }
            flusher.name = "Chronicle journal flusher"
            flusher.start()
        }
    }

    /// Opens the journal at `fileURL` for appending, creating it if absent.
    ///
    /// A new file is created atomically with its header, with permissions
    /// `0600`, and its directory is synced. The journal takes an exclusive
    /// advisory lock (`flock`) for as long as it is open. Opening scans every
    /// record: a torn tail (a last record cut short or failing its checksum,
    /// or zeros or garbage after the last whole commit) is truncated away and
    /// the file synced; anything else wrong is thrown *before* the file is
    /// modified.
    ///
    /// - Throws: ``JournalError/locked(_:)`` if another writer holds the journal;
    ///   ``JournalError/notAJournal(_:)``, ``JournalError/emptyFile(_:)``,
    ///   ``JournalError/unsupportedFormatVersion(found:supported:)`` or
    ///   ``JournalError/damaged(offset:lastGoodVersion:reason:)`` for a file it
    ///   cannot take over (left untouched); ``JournalError/io(operation:errno:path:)``.
    /// - Complexity: O(size of the journal).
    public convenience init(fileURL: URL, durability: Durability = .full) throws(JournalError) {
        try self.init(fileURL: fileURL, durability: durability, trusting: nil)
    }

    /// Opens the journal at `fileURL` for appending, as
    /// ``init(fileURL:durability:)`` does, but trusting the records of
    /// `prefix` (from a checkpoint) if it fits the file, so that only the
    /// records after it are scanned now.
    ///
    /// The prefix fits if the file id matches, `prefix.recordOffset` is in
    /// the data and a whole frame starts there whose stored checksum is
    /// `prefix.recordChecksum` and whose payload starts with `prefix.version`,
    /// after ``baseVersion``. Its payload's checksum is not checked, nor any
    /// record before it: they are checked, as a full open checks them, the
    /// first time a read needs an offset inside the prefix, and damage found
    /// then is thrown by that read. If the prefix does not fit, the whole
    /// journal is scanned, exactly as without one. ``trustedPrefixVersion``
    /// says which happened.
    ///
    /// - Throws: as ``init(fileURL:durability:)``.
    /// - Complexity: O(size of the journal after the prefix) if it fits,
    ///   otherwise O(size of the journal).
    convenience init(fileURL: URL, durability: Durability = .full, trusting prefix: JournalPrefix?) throws(JournalError) {
        let file = try JournalFile.openForWriting(fileURL)
        let scan = try JournalScan.scan(file, url: fileURL, trusting: prefix)
        if scan.tornBytes > 0 {
            try file.truncate(to: scan.end)
        } else {
            // What a crashed writer left in the page cache is now ours to vouch for.
            try file.sync()
        }
        self.init(fileURL: fileURL, durability: durability, isReadOnly: false, scan: scan, storage: file, syncedAtOpen: true)
    }

    /// Opens the journal at `fileURL` for appending, sharing it with every
    /// other process (and every other journal of this process) that opens it
    /// this way, creating it if absent.
    ///
    /// Each of them may append: an append takes the journal's process lock
    /// (`flock` on `<journal name>.lock` next to it) just for the write,
    /// first catching up (``catchUp()``) with the commits the others
    /// appended, so versions stay gap-free across them all. A commit whose
    /// version is not the one after the caught-up journal throws
    /// ``JournalError/versionMismatch(expected:found:)`` (a `Store` numbers
    /// its commits itself, under the lock). Durability (``durability``)
    /// is this journal's own, and group commit spans the processes: they
    /// record in `<journal name>.shared` how far the file is written and
    /// synced, and a commit that another process's sync already covered
    /// is durable without a sync of its own (a sync makes every commit
    /// written before it durable, whoever wrote it). A commit is still
    /// acknowledged only once it is durable.
    ///
    /// Opening takes the process lock briefly, so that it scans and cuts a
    /// torn tail as ``init(fileURL:durability:)`` does without mistaking a
    /// commit being written for one; and holds the journal file's shared
    /// `flock` while open, which tells an exclusive writer
    /// (``init(fileURL:durability:)``) and `Store.compact` that others
    /// use the file. For local file systems only (see the "Reliability" article).
    ///
    /// - Throws: ``JournalError/locked(_:)`` if an exclusive writer
    ///   (``init(fileURL:durability:)``, or a build of Chronicle from before
    ///   sharing) holds the journal; the other opening errors of
    ///   ``init(fileURL:durability:)``.
    /// - Complexity: O(size of the journal).
    public convenience init(sharedFileURL fileURL: URL, durability: Durability = .full) throws(JournalError) {
        try self.init(sharedFileURL: fileURL, durability: durability, trusting: nil)
    }

    /// ``init(sharedFileURL:durability:)``, trusting the records of `prefix`
    /// as ``init(fileURL:durability:trusting:)`` does.
    convenience init(sharedFileURL fileURL: URL, durability: Durability, trusting prefix: JournalPrefix?) throws(JournalError) {
        let lock = try ProcessWriteLock(journalURL: fileURL)
        try lock.lock()
        defer { lock.unlock() }
        let file = try JournalFile.openShared(fileURL)
        let scan = try JournalScan.scan(file, url: fileURL, trusting: prefix)
        let area = try SharedJournalArea(journalURL: fileURL)
        // Alone with the file: no other journal holds its shared lock, and
        // none opens it meanwhile (opening takes the process lock).
        let alone = file.tryLockExclusively()
        if alone {
            // No one sleeps on the area, whatever killed processes left counted.
            area.forgetSleepers()
            file.lockShared()
        }
        // Zeros after the last record, while another journal has the file
        // open, are the space its appends reserved ahead: theirs to use
        // (their catch-ups take zeros for reserved space), and nothing to
        // sync. Cutting them made this open sync and report them as a
        // torn tail, and the writer reserve again. Anything else after the
        // last record, or zeros no open journal uses, is cut.
        let cuts = scan.tornBytes > 0 && (alone || !scan.tailIsZeros)
        let syncs = cuts || !area.syncEnded(exactlyAt: scan.end, fileID: scan.fileID)
        if cuts {
            try file.truncate(to: scan.end)
        } else if syncs {
            // As an exclusive open does; but a sync of this very file that
            // ended exactly at its end (an earlier open's, a writer's)
            // already made it durable, and each `fdatasync` costs a device
            // flush.
            try file.sync()
        }
        area.adopt(fileID: scan.fileID, syncedEnd: scan.end)
        self.init(fileURL: fileURL, durability: durability, isReadOnly: false, scan: scan, storage: file, processLock: lock,
                  sharedArea: area, syncedAtOpen: syncs)
    }

    /// Opens the journal at `url` for reading only.
    ///
    /// Takes no lock and never modifies the file, so it can read a journal
    /// another process is writing (as of the moment it opened). A torn tail is
    /// not read; ``discardedTailBytes`` says how long it was. Appending throws
    /// ``JournalError/readOnly(_:)``.
    ///
    /// - Throws: the same opening errors as ``init(fileURL:durability:)``, except ``JournalError/locked(_:)``.
    /// - Complexity: O(size of the journal).
    public convenience init(contentsOf url: URL) throws(JournalError) {
        try self.init(contentsOf: url, trusting: nil)
    }

    /// Opens the journal at `url` for reading only, as ``init(contentsOf:)``
    /// does, trusting `prefix` as ``init(fileURL:durability:trusting:)`` does.
    /// - Throws: as ``init(contentsOf:)``.
    /// - Complexity: as ``init(fileURL:durability:trusting:)``.
    convenience init(contentsOf url: URL, trusting prefix: JournalPrefix?) throws(JournalError) {
        let file = try JournalFile.openForReading(url)
        let scan = try JournalScan.scan(file, url: url, trusting: prefix)
        self.init(fileURL: url, durability: .none, isReadOnly: true, scan: scan, storage: file)
    }

    /// Test and fuzzing seam: opens journal `bytes` held in memory exactly as
    /// ``init(contentsOf:trusting:)`` opens a file (same scan, same errors,
    /// read-only), with `url` standing in for the file's path in errors.
    /// - Complexity: as ``init(fileURL:durability:trusting:)``.
    convenience init(bytes: [UInt8], url: URL = URL(fileURLWithPath: "/in-memory.journal"),
                     trusting prefix: JournalPrefix? = nil) throws(JournalError) {
        let storage = InMemoryStorage(bytes: bytes)
        let scan = try JournalScan.scan(storage, url: url, trusting: prefix)
        self.init(fileURL: url, durability: .none, isReadOnly: true, scan: scan, storage: storage)
    }

    /// A new, empty journal in memory, with the same interface and format as a
    /// file journal. Syncing does nothing, but `durability` still decides how
    /// appends wait, so group commit can be exercised without a disk.
    public static func inMemory(durability: Durability = .full) -> Journal {
        let storage = InMemoryStorage()
        let scan = JournalScan(fileID: UUID(), offsets: [], end: JournalFormat.headerSize, tornBytes: 0)
        return Journal(fileURL: nil, durability: durability, isReadOnly: false, scan: scan, storage: storage)
    }

    /// An in-memory journal that starts after `baseVersion` and holds
    /// `commits` (versions `baseVersion + 1`, `+ 2`, …): what a compacted
    /// file holds (``Journal/replaceFile(at:baseVersion:commits:afterStep:)``),
    /// in memory.
    ///
    /// - Throws: ``JournalError/versionMismatch(expected:found:)`` when the
    ///   commits' versions do not follow `baseVersion`.
    /// - Complexity: O(size of the commits).
    static func inMemory(durability: Durability = .full, baseVersion: UInt64, commits: [Commit]) throws(JournalError) -> Journal {
        let fileID = IdentifierGeneration.makeUUID()
        var bytes = JournalFormat.makeHeader(fileID: fileID, baseVersion: baseVersion)
        var offsets: [Int] = []
        offsets.reserveCapacity(commits.count)
        for (index, commit) in commits.enumerated() {
            guard commit.version == baseVersion + 1 + UInt64(index) else {
                throw .versionMismatch(expected: baseVersion + 1 + UInt64(index), found: commit.version)
            }
            offsets.append(bytes.count)
            bytes += try JournalFormat.encodeRecord(commit)
        }
        let scan = JournalScan(fileID: fileID, baseVersion: baseVersion, offsets: offsets, end: bytes.count, tornBytes: 0)
        return Journal(fileURL: nil, durability: durability, isReadOnly: false, scan: scan, storage: InMemoryStorage(bytes: bytes))
    }

    deinit { try? close() }

    /// The version of the newest commit, or 0 for an empty journal.
    /// - Complexity: O(1).
    public var lastVersion: UInt64 { core.state.withLock { $0.lastVersion } }

    /// The write or sync failure that put the journal in the failed state, if any.
    public var failure: JournalError? { core.state.withLock { $0.failure } }

    /// Appends `commit` and returns once it is as durable as ``durability`` asks.
    ///
    /// Thread-safe. Equivalent to ``write(_:)`` followed by ``waitUntilDurable(_:)``.
    ///
    /// - Throws: ``JournalError/versionMismatch(expected:found:)`` unless
    ///   `commit.version == lastVersion + 1`; ``JournalError/diskFull(path:errno:)``
    ///   or ``JournalError/io(operation:errno:path:)`` when a write or sync fails
    ///   (the journal is failed from then on); ``JournalError/failed(reason:)``
    ///   once failed; ``JournalError/closed``; ``JournalError/readOnly(_:)``.
    /// - Complexity: O(size of the commit), plus a sync with ``Durability/full``.
    public func append(_ commit: Commit) throws(JournalError) {
        try waitUntilDurable(write(commit))
    }

    /// The first half of ``append(_:)``: writes `commit` as the next record,
    /// under the journal's lock and in version order, without waiting for
    /// durability. A shared journal (``init(sharedFileURL:durability:)``)
    /// takes the process lock for the write and catches up first, so the
    /// next version is the one after every process's commits. Pass the ticket to ``waitUntilDurable(_:)`` after releasing
    /// your own locks, so concurrent committers share one sync.
    ///
    /// - Throws: as ``append(_:)``.
    /// - Complexity: O(size of the commit).
    public func write(_ commit: Commit) throws(JournalError) -> DurabilityTicket {
        try writeRecord { core throws(JournalError) in try core.write(commit) }
    }

    /// ``write(_:)`` of a commit's record made already: a store's write
    /// encodes its events as it applies them.
    func write(_ record: JournalFormat.EncodedRecord) throws(JournalError) -> DurabilityTicket {
        try writeRecord { core throws(JournalError) in try core.write(record) }
    }

    /// Runs `writeRecord`, which writes one commit to the core, as
    /// ``write(_:)`` describes: under the process lock, caught up first, for
    /// a shared journal that does not hold it.
    private func writeRecord(_ writeRecord: (JournalCore) throws(JournalError) -> UInt64) throws(JournalError) -> DurabilityTicket {
        if isReadOnly, let fileURL { throw .readOnly(fileURL) }
        let core = self.core
        if let lock = core.processLock, !lock.isHeldByCurrentThread {
            defer { core.sharedArea?.didAppend() }
            return try lock.withLock { () throws(JournalError) -> DurabilityTicket in
                try core.catchUp(holdingProcessLock: true)
                return DurabilityTicket(version: try writeRecord(core))
            }
        }
        return DurabilityTicket(version: try writeRecord(core))
    }

    /// The second half of ``append(_:)``: returns once the commit `ticket`
    /// stands for is as durable as ``durability`` asks.
    ///
    /// With ``Durability/full``, one waiting committer (the leader) syncs once
    /// for every commit written so far, and waiters whose commit that sync
    /// covered return without syncing (group commit).
    ///
    /// - Throws: the sync's error for the leader whose sync failed,
    ///   ``JournalError/failed(reason:)`` for everyone after.
    public func waitUntilDurable(_ ticket: DurabilityTicket) throws(JournalError) {
        let core = self.core
        switch durability {
        case .full:
            try core.groupCommit.waitUntilSynced(ticket.version) { (version) throws(JournalError) in try core.sync(through: version) }
        case .batched(_, let maxCommits):
            try core.groupCommit.waitIfBacklog(maxCommits, version: ticket.version) { (version) throws(JournalError) in try core.sync(through: version) }
        case .none:
            return
        }
    }

    /// Makes every commit written so far durable, whatever ``durability`` says.
    /// - Throws: the sync's error; ``JournalError/failed(reason:)`` if the journal failed; ``JournalError/closed``.
    public func sync() throws(JournalError) {
        if isReadOnly { return }
        if core.state.withLock({ $0.isClosed }) { throw .closed }
        try syncWritten()
    }

    private func syncWritten() throws(JournalError) {
        let core = self.core
        try core.groupCommit.waitUntilSynced(core.groupCommit.writtenVersion) { (version) throws(JournalError) in try core.sync(through: version) }
    }

    /// Closes the journal: syncs what ``Durability/batched(maxDelay:maxCommits:)``
    /// left unsynced, stops the flusher and releases the writer's lock.
    /// Later appends throw ``JournalError/closed``; so do readers made later.
    /// Readers made before keep working. Closing twice does nothing.
    public func close() throws(JournalError) {
        let (wasClosed, failed) = core.state.withLock { state in
            defer { state.isClosed = true }
            return (state.isClosed, state.failure != nil)
        }
        if wasClosed { return }
        defer {
            if !isReadOnly { releaseReservation() }
            core.groupCommit.stop()
            core.storage.unlock()
        }
        if case .batched = durability, !isReadOnly, !failed { try syncWritten() }
    }

    /// Commits from `version` on, read lazily from storage.
    ///
    /// The sequence yields the commits that were in the journal when its
    /// iterator was made. It cannot throw: if reading fails (the file was
    /// damaged or changed underneath), iteration ends early and the iterator's
    /// ``Commits/Iterator/error`` says why. Use ``reader(from:)`` to get the
    /// error thrown instead. Versions below the first start at the first
    /// (``baseVersion`` + 1).
    /// - Complexity: O(1) to make; each element O(size of that commit).
    public func commits(from version: UInt64 = 1) -> Commits {
        Commits(journal: self, from: max(version, baseVersion + 1))
    }

    /// A reader of the commits from `version` on, that throws on failure.
    /// - Complexity: O(1) to make; each ``CommitReader/next()`` O(size of that commit).
    public func reader(from version: UInt64 = 1) -> CommitReader {
        CommitReader(journal: self, from: max(version, baseVersion + 1))
    }

    /// The commits from `version` on, as an `AsyncSequence` that throws ``JournalError``.
    public func asyncCommits(from version: UInt64 = 1) -> AsyncCommits {
        AsyncCommits(journal: self, from: max(version, baseVersion + 1))
    }

    /// Test seam: hooks that can fail writes and syncs.
    var faultInjection: FaultInjection? {
        get { core.state.withLock { $0.faults } }
        set { core.state.withLock { $0.faults = newValue } }
    }
}

/// Proof that a commit was written: pass it to ``Journal/waitUntilDurable(_:)``.
public struct DurabilityTicket: Sendable, Hashable {
    /// The version of the written commit.
    public let version: UInt64
}
