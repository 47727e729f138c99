import Foundation

/// The journal's mutable core: the storage, the version → offset index, and
/// the failed/closed flags, all behind one lock (see ``Locked`` for why not `Mutex`); plus group commit,
/// and the prefix a trusted open left to check (``prefixCheck``).
///
/// Kept apart from ``Journal`` so the batched flusher thread can hold the
/// core without keeping the public object alive.
final class JournalCore: Sendable {
    struct State: Sendable {
        /// The version before the first commit (0 unless compacted).
        let baseVersion: UInt64
        /// How many versions after `baseVersion` a trusted open left unscanned
        /// (``UnscannedPrefix``): they are in the journal, but not in `offsets`
        /// until the prefix is scanned. 0 once it is, or if there was none.
        var unscannedCount: UInt64 = 0
        /// `offsets[v - firstIndexedVersion]` is where the record of version `v` starts (8 bytes a commit).
        var offsets: [Int]
        /// The end of the last written record: where the next one goes.
        var end: Int
        /// The first write or sync failure; once set, appends throw.
        var failure: JournalError?
        var isClosed = false
        var faults: FaultInjection?
        /// How far the file is zero-filled ahead of `end`; appends within it
        /// do not change the file's size.
        var reservedEnd: Int
        /// Whether appends reserve space ahead (a file journal that syncs).
        var reserves: Bool

        var lastVersion: UInt64 { firstIndexedVersion - 1 + UInt64(offsets.count) }
        /// The version whose record `offsets[0]` is.
        var firstIndexedVersion: UInt64 { baseVersion + unscannedCount + 1 }

        /// Whether finding the record of `version` (or, at most `baseVersion`,
        /// of the first version) needs the unscanned prefix scanned first.
        func needsPrefixScan(_ version: UInt64) -> Bool { version < firstIndexedVersion && unscannedCount > 0 }

        /// Where the record of `version` starts (the first record's, for a
        /// version at most `baseVersion`). Only for a version at most
        /// `lastVersion` that does not need the prefix scanned.
        func offset(of version: UInt64) -> Int {
            offsets[version > firstIndexedVersion ? Int(version - firstIndexedVersion) : 0]
        }
    }

    let storage: any JournalStorage
    let state: Locked<State>
    let groupCommit: GroupCommit
    /// The prefix a trusted open skipped, until it is scanned; lock order:
    /// this lock, then `state`'s (see `scanUnscannedPrefix()`).
    let prefixCheck: Locked<PrefixCheck>
    /// The lock writers of a journal shared between processes take to
    /// append (``Journal/init(sharedFileURL:durability:)``); `nil` for a
    /// journal no other process writes. Lock order: this lock, then `state`'s.
    let processLock: ProcessWriteLock?
    /// What the processes sharing the file tell each other (how far it is
    /// written and synced); `nil` for a journal no other process writes.
    let sharedArea: SharedJournalArea?
    /// The identifier of this journal's file, which the shared area's ends
    /// must be for; meaningful only with ``sharedArea``. Kept apart from
    /// it: `UUID` comes from a library built for binary compatibility, so
    /// an optional pair of the two was copied and destroyed through the
    /// runtime's generic witnesses (a few hundred instructions) at every
    /// use, several times a commit.
    let sharedFileID: UUID

    /// How much an append reserves ahead of the data when it runs out.
    static let reservation = 1 << 20

    /// A core whose storage holds the records at `offsets`, after the
    /// records of `unscanned` (if a trusted open skipped them) or after
    /// `baseVersion`.
    init(storage: any JournalStorage, baseVersion: UInt64 = 0, unscanned: UnscannedPrefix? = nil, offsets: [Int], end: Int,
         hasFlusher: Bool, reserves: Bool = false, processLock: ProcessWriteLock? = nil,
         sharedArea: (area: SharedJournalArea, fileID: UUID)? = nil) {
        self.storage = storage
        self.processLock = processLock
        self.sharedArea = sharedArea?.area
        sharedFileID = sharedArea?.fileID ?? UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        let initial = State(baseVersion: baseVersion, unscannedCount: unscanned?.count ?? 0, offsets: offsets, end: end,
                            reservedEnd: end, reserves: reserves)
        state = Locked(initial)
        prefixCheck = Locked(unscanned.map { .pending($0) } ?? .checked)
        groupCommit = GroupCommit(durableVersion: initial.lastVersion, hasFlusher: hasFlusher)
    }

    /// Writes `commit` as the next record, in version order, without syncing.
    /// A failed write poisons the journal.
    func write(_ commit: Commit) throws(JournalError) -> UInt64 {
        let record = try JournalFormat.encodeRecord(commit)
        return try write(version: commit.version, count: record.count) { (end) throws(JournalError) in
            try record.withBytes { raw throws(JournalError) in try storage.write(raw, at: end) }
        }
    }

    /// ``write(_:)`` of a commit's record made already (a store's write
    /// encodes its events as it applies them).
    func write(_ record: JournalFormat.EncodedRecord) throws(JournalError) -> UInt64 {
        try write(version: record.version, count: record.count) { (end) throws(JournalError) in
            try record.withBytes { raw throws(JournalError) in try storage.write(raw, at: end) }
        }
    }

    /// Writes the record of version `version`, `count` bytes, with
    /// `writeRecord` at the offset it is given, in version order.
    private func write(version commitVersion: UInt64, count: Int,
                       _ writeRecord: (Int) throws(JournalError) -> Void) throws(JournalError) -> UInt64 {
        try state.withLock { (state) throws(JournalError) -> UInt64 in
            if state.isClosed { throw .closed }
            if let failure = state.failure { throw .failed(reason: failure.description) }
            let version = state.lastVersion + 1
            guard commitVersion == version else { throw .versionMismatch(expected: version, found: commitVersion) }
            do throws(JournalError) {
                if let hook = state.faults?.beforeWrite { try hook(version) }
                let end = state.end
                try writeRecord(end)
                if state.reserves, end + count > state.reservedEnd { reserve(&state, after: end + count) }
            } catch {
                state.failure = error
                groupCommit.fail(error)
                throw error
            }
            state.offsets.append(state.end)
            state.end += count
            sharedArea?.didWrite(upTo: state.end)
            groupCommit.didWrite(version)
            return version
        }
    }

    /// Zero-fills the megabyte after `dataEnd`, the end of a record just
    /// written past the reserved space, and syncs the file with it.
    ///
    /// Appending grows the file, and then each `fdatasync` must also commit
    /// the new size (a file-system journal commit), which makes a durable
    /// append at the end of the file markedly slower than one inside space
    /// already the file's. SQLite's
    /// write-ahead log gets the same effect by rewriting its log in place.
    ///
    /// Readers never see the zeros: they stop at ``State/end``, and a scan
    /// treats zeros after the last record as a torn tail (opening for
    /// writing cuts them; closing does too). A reservation that fails is not
    /// an error — the record is written; its own sync reports a full disk
    /// if there is one — and reserving stops.
    ///
    /// The record goes first and the zeros after it, so one sync covers
    /// both: zero-filling the record's space too, then syncing before
    /// writing it, was a second sync and as many zeros as the record for a
    /// large commit, such as a bulk insert in one write.
    private func reserve(_ state: inout State, after dataEnd: Int) {
        let target = dataEnd + Self.reservation
        do throws(JournalError) {
            try storage.reserve(from: max(state.reservedEnd, dataEnd), to: target)
            state.reservedEnd = target
        } catch {
            state.reserves = false
        }
    }

    /// Cuts the reserved zeros off the file (at close). Best effort: the
    /// next writer's open cuts them too.
    func releaseReservation() {
        state.withLock { state in
            guard state.reservedEnd > state.end, state.failure == nil else { return }
            if (try? storage.truncate(to: state.end)) != nil { state.reservedEnd = state.end }
        }
    }

    /// Makes everything up to `version` durable, syncing the storage (group
    /// commit calls this with no lock held), unless, for a journal shared
    /// between processes, another process's sync already covered the end
    /// of `version`'s record (``SharedJournalArea/syncCovering(_:fileID:sync:)``).
    /// A failed sync poisons the journal: it is never retried.
    func sync(through version: UInt64) throws(JournalError) {
        let (hook, target) = state.withLock { state in
            // The end of `version`'s record: where the next one starts, or
            // the end of the data (also where a version not indexed goes).
            let next = version + 1
            let end = next >= state.firstIndexedVersion && next <= state.lastVersion ? state.offset(of: next) : state.end
            return (state.faults?.beforeSync, end)
        }
        do throws(JournalError) {
            if let hook { try hook() }
            if let area = sharedArea {
                try area.syncCovering(target, fileID: sharedFileID) { () throws(JournalError) in try storage.sync() }
            } else {
                try storage.sync()
            }
        } catch {
            state.withLock { if $0.failure == nil { $0.failure = error } }
            throw error
        }
    }

    /// Where reading from `version` starts and where the written data ends.
    ///
    /// - Throws: if `version` lies in an unscanned prefix, what scanning it
    ///   throws (``scanUnscannedPrefix()``).
    /// - Complexity: O(1), or O(size of the prefix) to scan it.
    func readRange(from version: UInt64) throws(JournalError) -> (start: Int, end: Int, lastVersion: UInt64, isClosed: Bool) {
        let closed = state.withLock { state in state.isClosed ? (state.end, state.end, state.lastVersion, true) : nil }
        if let closed { return closed }
        return try lookUp(version) { state in
            let start = version <= state.lastVersion ? state.offset(of: version) : state.end
            return (start, state.end, state.lastVersion, state.isClosed)
        }
    }

    /// Where the record of `version` starts; `nil` unless
    /// `baseVersion < version <= lastVersion`.
    ///
    /// - Throws: as ``readRange(from:)``.
    /// - Complexity: as ``readRange(from:)``.
    func recordOffset(of version: UInt64) throws(JournalError) -> Int? {
        // The trusted record itself was checked at open: where it starts is
        // known without scanning the prefix (a checkpoint written at that
        // version, right after the open, asks for it).
        let trusted: Int? = prefixCheck.withLock { check in
            if case .pending(let prefix) = check, prefix.version == version { prefix.recordOffset } else { nil }
        }
        if let trusted { return trusted }
        return try lookUp(version) { state in
            version > state.baseVersion && version <= state.lastVersion ? state.offset(of: version) : nil
        }
    }

    /// `body` applied to the state once the record of `version` is indexed,
    /// scanning the unscanned prefix first if it must.
    private func lookUp<T>(_ version: UInt64, _ body: (State) -> T) throws(JournalError) -> T {
        while true {
            let found: T? = state.withLock { state in state.needsPrefixScan(version) ? nil : body(state) }
            if let found { return found }
            // Either throws or leaves nothing unscanned: the next turn finds it.
            try scanUnscannedPrefix()
        }
    }
}
