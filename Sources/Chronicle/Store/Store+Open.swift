import Foundation

extension Store {
    /// Opens a journal's state: the checkpoint file if it is valid, then
    /// the commits after it. Says whether a fresh checkpoint file is due:
    /// when the fold was long (see ``Store/CheckpointPolicy/fileThreshold``)
    /// or the file was damaged or stale. The store writes it in the
    /// background once open (``CheckpointFileWriter/writeAfterOpening()``):
    /// writing a large state's file costs about as much as folding it, and
    /// the caller need not wait for it to read.
    ///
    /// - Returns: the state, how many events the journal holds beyond the
    ///   checkpoint file (where the store's writer starts counting),
    ///   whether a fresh file is due, and whether the fold was large enough
    ///   that the store should give the memory freed while opening back to
    ///   the system once open (``FreedMemory/release()``; the fold does not,
    ///   since the rest of the open frees more).
    ///
    /// - Parameter candidate: the checkpoint file as read before the journal
    ///   was opened (``checkpointCandidate(for:policy:)``), if any.
    static func open(_ journal: Journal, checkpoints: CheckpointIndex,
                     candidate: Result<CheckpointFile.Candidate, CheckpointFile.Rejection>?) throws(StoreError)
        -> (state: StoreState, eventsBeyondFile: Int, fileIsDue: Bool, releasesFreedMemory: Bool) {
        let limits = checkpoints.limits
        var state = StoreState()
        if limits.usesFile, journal.fileURL != nil, let candidate {
            switch candidate.flatMap({ CheckpointFile.decode($0, journal: journal, deferringFrom: max(1, limits.lazyTableMinimum)) }) {
            case .success(let loaded):
                state = loaded
                checkpoints.insert(loaded)
                checkpoints.fileStatus = .loaded(version: loaded.version)
            case .failure(let rejection):
                checkpoints.fileStatus = .rejected(rejection)
            }
        }
        var folded = 0, large = false
        do {
            let reader = journal.reader(from: state.version + 1)
            large = FreedMemory.isLargeFold(reading: reader.remainingBytes)
            try state.foldReadingAhead(reader, releasingFreedMemory: false) { state, events in
                checkpoints.didFold(copy state, events: events)
                folded += events
                return true
            }
        } catch {
            throw StoreError(error)
        }
        var rebuild = folded > 0 && folded >= limits.fileThreshold
        if case .rejected(let rejection) = checkpoints.fileStatus, !rejection.isMissingFile { rebuild = state.version > 0 }
        return (state, folded, limits.usesFile && journal.fileURL != nil && !journal.isReadOnly && rebuild, large)
    }

    /// The checkpoint file of the journal at `url`, read (its header and
    /// directory) before the journal is opened, so that the journal can
    /// trust the prefix it covers; `nil` if the policy uses no file.
    static func checkpointCandidate(for url: URL, policy: CheckpointPolicy)
        -> Result<CheckpointFile.Candidate, CheckpointFile.Rejection>? {
        policy.usesFile ? CheckpointFile.candidate(for: url) : nil
    }

    /// Writes the checkpoint file for the current version next to the
    /// journal now, so the next open folds only the commits after it. Does
    /// nothing for an in-memory store, an empty one, or one whose
    /// ``Store/CheckpointPolicy/usesFile`` is off.
    ///
    /// A file store already keeps the file within
    /// ``Store/CheckpointPolicy/fileThreshold`` events of the journal on its own,
    /// in the background; call this to bring it fully up to date, say
    /// before copying the journal and its checkpoint elsewhere. It writes
    /// nothing when the file this store last wrote holds the newest
    /// version and is still the file there (not deleted, not replaced by
    /// another process's).
    ///
    /// The file is a cache: deleting it loses nothing. It is replaced
    /// atomically and durably (written to a temporary file, synced, renamed
    /// over the old one, the directory synced), so a crash leaves the old
    /// file or the new one, whole; the journal is only read. Opening
    /// ignores (and rewrites) a checkpoint file that fails its checksum or
    /// does not match the journal.
    ///
    /// - Throws: ``JournalError`` from syncing the journal or writing the file.
    /// - Complexity: O(size of the state).
    public func writeCheckpoint() throws {
        try writeCheckpoint(afterStep: nil)
    }

    /// ``writeCheckpoint()`` with a fault-injection seam: `afterStep` may
    /// throw to stop the file's replacement after a step, as a crash would.
    func writeCheckpoint(afterStep: CheckpointFileWriter.StepHook?) throws {
        guard configuration.checkpoints.usesFile else { return }
        try checkpointFile.writeNow(afterStep: afterStep)
    }
}
