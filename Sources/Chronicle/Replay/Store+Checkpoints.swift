import Foundation

extension Store {
    /// Opens a journal's state: the checkpoint file if it is valid, then
    /// the commits after it. Writes a fresh checkpoint file when the fold
    /// was long (see ``CheckpointPolicy/fileThreshold``).
    static func open(_ journal: Journal, checkpoints: CheckpointIndex) throws(StoreError) -> StoreState {
        let policy = checkpoints.policy
        var state = StoreState()
        if policy.usesFile, journal.fileURL != nil {
            switch CheckpointFile.load(for: journal) {
            case .success(let loaded):
                state = loaded
                checkpoints.insert(loaded)
                checkpoints.fileStatus = .loaded(version: loaded.version)
            case .failure(let rejection):
                checkpoints.fileStatus = .rejected(rejection)
            }
        }
        var reader = journal.reader(from: state.version + 1)
        var folded = 0
        while true {
            let next: Commit?
            do { next = try reader.next() } catch { throw .journal(error) }
            guard let commit = next else { break }
            do { try state.foldInPlace(commit) } catch { throw .rejected(error) }
            checkpoints.didFold(state, events: commit.events.count)
            folded += commit.events.count
        }
        var rebuild = folded > 0 && folded >= policy.fileThreshold
        if case .rejected(let rejection) = checkpoints.fileStatus, !rejection.isMissingFile { rebuild = state.version > 0 }
        if policy.usesFile, !journal.isReadOnly, rebuild {
            // A cache: failing to write it costs only the next open's time.
            if (try? CheckpointFile.write(state, journal: journal)) != nil {
                checkpoints.fileStatus = .written(version: state.version)
            }
        }
        return state
    }

    /// Writes the checkpoint file for the current version next to the
    /// journal, so the next open folds only the commits after it. Does
    /// nothing for an in-memory store or an empty one.
    ///
    /// The file is a cache: deleting it loses nothing. Opening ignores (and
    /// later rewrites) a checkpoint file that fails its checksum or does not
    /// match the journal.
    ///
    /// - Throws: the error of writing the file.
    /// - Complexity: O(size of the state).
    public func writeCheckpoint() throws {
        guard configuration.checkpoints.usesFile else { return }
        let state = committedState()
        try CheckpointFile.write(state, journal: journal)
        checkpoints.fileStatus = .written(version: state.version)
    }

    /// The folder over this store's journal and checkpoints.
    var folder: JournalFolder { JournalFolder(journal: journal, checkpoints: checkpoints) }

    /// The committed state at `version`: the current state, or the fold from
    /// the nearest checkpoint.
    func state(at version: UInt64) throws(StoreError) -> StoreState {
        let current = committedState()
        guard version <= current.version else {
            throw .versionOutOfRange(requested: version, available: 0...current.version)
        }
        if version == current.version { return current }
        return try folder.state(at: version)
    }
}
