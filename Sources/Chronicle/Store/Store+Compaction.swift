import Foundation

extension Store {
    /// Replaces the journal with a compacted one: a snapshot of the state,
    /// then the last `keepingLast` commits of history.
    ///
    /// The new journal's first commit is a *snapshot commit*: one commit,
    /// labelled `"compaction"`, that defines every type and creates every
    /// object as they were at its version (see
    /// ``StoreState/snapshotCommit(timestamp:)``). It keeps the version
    /// (and timestamp) of the commit it stands for, so version numbers go on
    /// from where they were: the journal records its *base version* (the
    /// version before its first commit) in its header
    /// (``Journal/baseVersion``). History before the snapshot is dropped;
    /// ``Journal/reader(from:)`` starts at the snapshot.
    ///
    /// With `keepingLast: n`, the snapshot is of the state `n` commits ago
    /// and those `n` commits follow it unchanged (at most every commit after
    /// the journal's current first one).
    ///
    /// **Atomic.** The new journal is written to a temporary file in the
    /// same directory, synced, renamed over the journal and the directory
    /// synced: a crash at any point leaves the old journal or the new one,
    /// whole, and either opens to the same state. Before renaming, the new
    /// commits are folded and checked to give the current state.
    ///
    /// **Several processes.** Compaction replaces the journal file, so it
    /// runs only while no other process (and no other store of this
    /// process) has the journal open: otherwise, after trying for up to
    /// 100 ms (a store just dropped may still be closing), it throws
    /// ``StoreError/sharedWithOtherProcesses(operation:)`` and changes
    /// nothing. It holds the journal's process lock throughout, so no
    /// process opens the old file meanwhile; one that opens the store
    /// during compaction waits, then opens the new file.
    ///
    /// Writers wait while compaction runs; readers do not. The store keeps
    /// working afterwards on the new journal. An in-memory store has no file
    /// to compact: the call does nothing.
    ///
    /// - Throws: ``StoreError/journal(_:)`` if writing, syncing or renaming
    ///   fails (the old journal stays in use unless the rename happened);
    ///   ``StoreError/sharedWithOtherProcesses(operation:)``.
    /// - Complexity: O(number of objects) for the snapshot, plus
    ///   O(journal) to fold the journal again when `keepingLast > 0`.
    public func compact(keepingLast: Int = 0) throws {
        try compact(keepingLast: keepingLast, afterStep: nil)
    }

    /// ``compact(keepingLast:)`` with a fault-injection seam: `afterStep`
    /// may throw to stop the replacement after a step, as a crash would.
    func compact(keepingLast: Int, afterStep: ((FileReplacementStep) throws(JournalError) -> Void)?) throws {
        precondition(currentTransaction() == nil, "Chronicle: store.compact() cannot run inside a write on the same store")
        guard let url = configuration.fileURL else { return }
        writer.lock()
        defer { writer.unlock() }
        try replaceJournalFile(at: url, operation: "compact()", afterStep: afterStep) { current, old in
            let first = old.baseVersion + 1
            guard current.version >= first else { return nil }
            // The first commit of the journal cannot be kept as history: it may
            // be a snapshot itself, and the new snapshot folds it in anyway.
            let keep = UInt64(max(0, min(keepingLast, Int(current.version - first))))
            let snapshotVersion = current.version - keep
            let base = keep == 0 ? current : try Store.fold(old, upTo: snapshotVersion)
            var history: [Commit] = []
            var reader = old.reader(from: snapshotVersion)
            do throws(JournalError) {
                guard let original = try reader.next() else { preconditionFailure("Chronicle: the journal lacks version \(snapshotVersion)") }
                history.append(base.snapshotCommit(timestamp: original.timestamp))
                while let commit = try reader.next(), commit.version <= current.version { history.append(commit) }
            } catch {
                throw StoreError.journal(error)
            }
            // The new journal must fold to exactly the current state.
            var check = StoreState()
            for commit in history { try check.foldInPlace(commit) }
            precondition(check.version == current.version && check.isContentEqual(current),
                         "Chronicle: compaction produced a journal that does not fold to the current state")
            return JournalReplacement(baseVersion: snapshotVersion - 1, commits: history, state: nil)
        }
    }

    /// A new journal for ``replaceJournalFile(at:operation:afterStep:_:)``
    /// to write: its base version and commits, and the state to publish
    /// with it (`nil`: the store's state stays as it is).
    struct JournalReplacement {
        var baseVersion: UInt64
        var commits: [Commit]
        var state: StoreState?
    }

    /// How long ``replaceJournalFile(at:operation:afterStep:_:)`` keeps
    /// trying to have the journal file alone before it refuses: a store the
    /// app just dropped may close its journal a moment later, on the thread
    /// (its file watcher, a checkpoint write) that held its last reference.
    static let fileAlonePatience = Duration.milliseconds(100)

    /// Replaces the journal file with a new one, as compaction and a sync
    /// bootstrap do. Call holding ``writer``.
    ///
    /// Takes the journal's process lock, folds what other processes
    /// appended and makes sure none of them has the file open (they would go
    /// on appending to the old file after the rename; holding the process
    /// lock, no one opens it meanwhile: opening takes the lock too),
    /// releasing the lock and trying again for up to ``fileAlonePatience``
    /// while one has it. Then
    /// `replacement` gets the caught-up state and the old journal and says
    /// what to write (`nil`: nothing), the file is replaced atomically and
    /// the store switches to the new one.
    ///
    /// - Returns: whether the journal was replaced.
    /// - Throws: ``StoreError/sharedWithOtherProcesses(operation:)`` when
    ///   another process still has the file open after
    ///   ``fileAlonePatience`` (nothing changed); what
    ///   `replacement` throws; ``StoreError/journal(_:)``.
    @discardableResult
    func replaceJournalFile(at url: URL, operation: String, afterStep: ((FileReplacementStep) throws(JournalError) -> Void)?,
                            _ replacement: (StoreState, Journal) throws -> JournalReplacement?) throws -> Bool {
        let old = journal
        var holdsProcessLock = false
        func releaseProcessLock() {
            if holdsProcessLock { old.unlockAfterAppending() }
            holdsProcessLock = false
        }
        defer { releaseProcessLock() }
        let deadline = ContinuousClock.now + Self.fileAlonePatience
        while true {
            do { try old.lockForAppending() } catch { throw StoreError.journal(error) }
            holdsProcessLock = true
            try foldAppendedCommits(from: old)
            if old.tryUseFileAlone() { break }
            // Tried again without the process lock, which a closing journal
            // takes to cut its reserved zeros before it lets the file go.
            releaseProcessLock()
            guard ContinuousClock.now < deadline else { throw StoreError.sharedWithOtherProcesses(operation: operation) }
            Thread.sleep(forTimeInterval: 0.002)
        }
        var replaced = false
        defer { if !replaced { old.shareFileAgain() } }
        guard let new = try replacement(committedState(), old) else { return false }
        do {
            try old.sync()
            try Journal.replaceFile(at: url, baseVersion: new.baseVersion, commits: new.commits, afterStep: afterStep)
        } catch {
            // Once renamed, the journal at `url` is the new one: use it even if
            // a later step failed, or commits would go to the unlinked file.
            if let found = try? Journal(contentsOf: url), found.fileIdentifier != old.fileIdentifier {
                replaced = true
                releaseProcessLock()
                try? swapJournal(url: url, old: old, publishing: new.state)
            }
            throw StoreError.journal(error)
        }
        replaced = true
        // Opening the new journal takes the process lock itself.
        releaseProcessLock()
        try swapJournal(url: url, old: old, publishing: new.state)
        return true
    }

    private func swapJournal(url: URL, old: Journal, publishing state: StoreState?) throws {
        let new: Journal
        do { new = try Journal(sharedFileURL: url, durability: configuration.durability) } catch { throw StoreError.journal(error) }
        journalBox.withLock { $0 = new }
        if let state { publish(state) }
        try? old.close()
        startFollowing() // the watch was on the old file
        // The new journal has a new file identifier: the checkpoint file
        // matches it no longer, so the next open would fold it all.
        checkpointFile.journalWasReplaced()
    }
}
