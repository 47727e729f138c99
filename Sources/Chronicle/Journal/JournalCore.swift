import Foundation

/// The journal's mutable core: the storage, the version → offset index, and
/// the failed/closed flags, all behind one lock (see ``Locked`` for why not `Mutex`); plus group commit.
///
/// Kept apart from ``Journal`` so the batched flusher thread can hold the
/// core without keeping the public object alive.
final class JournalCore: Sendable {
    struct State: Sendable {
        /// The version before the first commit (0 unless compacted).
        let baseVersion: UInt64
        /// `offsets[v - 1 - baseVersion]` is where the record of version `v` starts (8 bytes a commit).
        var offsets: [Int]
        /// The end of the last written record: where the next one goes.
        var end: Int
        /// The first write or sync failure; once set, appends throw.
        var failure: JournalError?
        var isClosed = false
        var faults: FaultInjection?

        var lastVersion: UInt64 { baseVersion + UInt64(offsets.count) }
    }

    let storage: any JournalStorage
    let state: Locked<State>
    let groupCommit: GroupCommit

    init(storage: any JournalStorage, baseVersion: UInt64 = 0, offsets: [Int], end: Int, hasFlusher: Bool) {
        self.storage = storage
        state = Locked(State(baseVersion: baseVersion, offsets: offsets, end: end))
        groupCommit = GroupCommit(durableVersion: baseVersion + UInt64(offsets.count), hasFlusher: hasFlusher)
    }

    /// Writes `commit` as the next record, in version order, without syncing.
    /// A failed write poisons the journal.
    func write(_ commit: Commit) throws(JournalError) -> UInt64 {
        let record = try JournalFormat.encodeRecord(commit)
        return try state.withLock { (state) throws(JournalError) -> UInt64 in
            if state.isClosed { throw .closed }
            if let failure = state.failure { throw .failed(reason: failure.description) }
            let version = state.lastVersion + 1
            guard commit.version == version else { throw .versionMismatch(expected: version, found: commit.version) }
            do throws(JournalError) {
                if let hook = state.faults?.beforeWrite { try hook(version) }
                let end = state.end
                try record.withBytes { raw throws(JournalError) in try storage.write(raw, at: end) }
            } catch {
                state.failure = error
                groupCommit.fail(error)
                throw error
            }
            state.offsets.append(state.end)
            state.end += record.count
            groupCommit.didWrite(version)
            return version
        }
    }

    /// Syncs the storage (group commit calls this with no lock held). A failed
    /// sync poisons the journal: it is never retried.
    func sync() throws(JournalError) {
        let hook = state.withLock { $0.faults?.beforeSync }
        do throws(JournalError) {
            if let hook { try hook() }
            try storage.sync()
        } catch {
            state.withLock { if $0.failure == nil { $0.failure = error } }
            throw error
        }
    }

    /// Where reading from `version` starts and where the written data ends.
    func readRange(from version: UInt64) -> (start: Int, end: Int, lastVersion: UInt64, isClosed: Bool) {
        state.withLock { state in
            let index = version > state.baseVersion ? Int(version - 1 - state.baseVersion) : 0
            let start = version <= state.lastVersion ? state.offsets[index] : state.end
            return (start, state.end, state.lastVersion, state.isClosed)
        }
    }
}
