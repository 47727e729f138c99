import Dispatch

extension Store {
    /// Folds the commits the journal holds beyond the published state,
    /// commits that someone else appended (another process sharing the
    /// file), into it, one at a time and in version order, and dispatches
    /// each to this store's observers exactly as one of its own writes: the
    /// same streams, the same key-path filtering, the same old values.
    ///
    /// The one path by which a store takes in commits it did not write:
    /// a write's catch-up (``beginWrite()``), following other processes
    /// (``followOtherProcesses()``), and whatever else appends to the
    /// journal from outside the store.
    ///
    /// Call holding ``writer``, after the journal caught up
    /// (``Journal/catchUp()`` or ``Journal/lockForAppending()``).
    ///
    /// - Returns: how many commits were folded.
    /// - Throws: ``StoreError/journal(_:)`` if a commit cannot be read,
    ///   ``StoreError/rejected(_:)`` if one does not fold (the state is then
    ///   that of the commits before it).
    /// - Complexity: O(size of the new commits), plus the observers' dispatch.
    @discardableResult
    func foldAppendedCommits(from journal: Journal) throws(StoreError) -> Int {
        var base = committedState()
        guard journal.lastVersion > base.version else { return 0 }
        var reader = journal.reader(from: base.version + 1)
        var folded = 0
        while true {
            let next: Commit?
            do { next = try reader.next() } catch { throw .journal(error) }
            guard let commit = next else {
                if folded > 0 { commitListeners.notify(base.version) }
                return folded
            }
            let applied: (state: StoreState, changes: ChangeSet)
            do { applied = try base.applying(commit) } catch { throw .rejected(error) }
            publish(applied.state)
            checkpoints.didFold(applied.state, events: commit.events.count)
            checkpointFile.didCommit(events: commit.events.count)
            observers.dispatch(applied.changes, old: base, new: applied.state)
            base = applied.state
            folded += 1
        }
    }

    /// The start of a write, holding ``writer``: takes the journal's
    /// process lock (a shared journal's) and folds what other processes
    /// appended, so the write's base is the newest state and its commit gets
    /// the next version. The caller appends to the returned journal and
    /// then calls ``Journal/unlockAfterAppending()``.
    ///
    /// When other processes appended since this store's last write (on
    /// Linux the shared area tells, without a system call), it first folds
    /// what they appended *before* taking the process lock: with several
    /// processes writing, the lock passes from one writer to the next,
    /// and what each folds holding it, every other writer waits for. So
    /// under the lock it folds only what was appended meanwhile. (A
    /// process that is writing leaves the others' commits to its writes:
    /// its follower stands aside, see ``followOtherProcessesUnlessWriting()``.)
    /// - Throws: ``StoreError/journal(_:)``, ``StoreError/rejected(_:)``;
    ///   the process lock and ``writer`` are released then.
    func beginWrite() throws(StoreError) -> Journal {
        let journal = self.journal
        // A failure here is met again, and thrown, under the lock.
        if journal.othersMayHaveAppended { foldWhatOthersAppended() }
        do throws(StoreError) {
            do { try journal.lockForAppending() } catch { throw .journal(error) }
            try foldAppendedCommits(from: journal)
        } catch {
            journal.unlockAfterAppending()
            writer.unlock()
            throw error
        }
        return journal
    }

    /// Folds what other processes appended since the last look and
    /// dispatches it to this store's observers: what the file-change
    /// watcher runs. Waits for a write of this process in progress.
    ///
    /// A failure is not thrown anywhere: the next write meets it again and
    /// throws it, and the next change tries again.
    func followOtherProcesses() {
        writer.lock()
        defer { writer.unlock() }
        foldWhatOthersAppended()
    }

    /// ``followOtherProcesses()`` unless this process is writing to the
    /// store (a write under way, from its wait for the writer lock to its
    /// commit's durability, or anything else holding the writer lock): then
    /// it waits for nothing and returns `false`, leaving the commits to the
    /// next write's catch-up or a later look. What the ``AppendFollower``
    /// runs: a process writing back to back folds the others' commits before
    /// each of its own anyway, and a follower woken for each of them, to
    /// wait on the store or to fold between two of its writes, cost each
    /// commit sleeps and wake-ups on a machine with fewer cores than
    /// writing processes.
    /// - Returns: whether it looked (`false`: the store was busy).
    func followOtherProcessesUnlessWriting() -> Bool {
        guard !writesUnderWay.any, writer.tryLock() else { return false }
        defer { writer.unlock() }
        foldWhatOthersAppended()
        return true
    }

    /// The journal's catch-up and the fold of what it found; call holding
    /// ``writer``.
    private func foldWhatOthersAppended() {
        let journal = self.journal
        guard (try? journal.catchUp()) != nil else { return }
        _ = try? foldAppendedCommits(from: journal)
    }

    /// Starts following the commits other processes append to a shared
    /// journal (at open, and on the new file after compaction): on Linux an
    /// ``AppendFollower`` on the journal's shared area, elsewhere a
    /// ``FileChangeWatcher`` on the journal file; either runs
    /// ``followOtherProcesses()`` when another process appended (the
    /// ``AppendFollower`` ``followOtherProcessesUnlessWriting()``, and
    /// looks again a moment later if the store was busy).
    ///
    /// The handler first looks with neither the store nor its journal in
    /// hand (the journal's core and the published state are enough), and
    /// takes the store only when another process did append: a handler
    /// holding the store would make dropping the store close its journal a
    /// moment later on the handler's thread, instead of at once.
    func startFollowing() {
        let journal = self.journal
        guard journal.isShared, let url = journal.fileURL else { return }
        let core = journal.core
        let published = self.published
        let writes = self.writesUnderWay
        // Whether there is something to fold: the journal's core and the
        // published state, neither the store nor its journal in hand. Both
        // weakly: the follower's thread keeps this closure until it wakes
        // after the store goes, and holding them would free the state (and
        // close the journal) there, later, at the thread's low priority,
        // while the caller may be opening the next store.
        let hasNews: @Sendable () -> Bool = { [weak core, weak published] in
            guard let core, let published, let last = try? core.catchUp(holdingProcessLock: false) else { return false }
            return last > published.withLock({ $0 }).state.version
        }
        // The store through its relay, not a weak reference (see `StoreRelay`).
        let relay = followRelay
        relay.attach(self)
        let onChange: @Sendable () -> Void = {
            if hasNews() { relay.store()?.followOtherProcesses() }
        }
        let newFollower: any CommitFollower
        #if os(Linux)
        if let area = core.sharedArea {
            newFollower = AppendFollower(area: area, fallback: Journal.followFallbackInterval) {
                // Busy first: it costs one load, the journal's look a read.
                guard !writes.any else { return false }
                guard hasNews() else { return true }
                return relay.store()?.followOtherProcessesUnlessWriting() ?? true
            }
        } else {
            newFollower = FileChangeWatcher(path: url.path, fallback: Journal.followFallbackInterval,
                                            queue: DispatchQueue(label: "Chronicle store follower", qos: .userInitiated),
                                            onChange: onChange)
        }
        #else
        newFollower = FileChangeWatcher(path: url.path, fallback: Journal.followFallbackInterval,
                                        queue: DispatchQueue(label: "Chronicle store follower", qos: .userInitiated),
                                        onChange: onChange)
        #endif
        follower.withLock { current in
            current?.cancel()
            current = newFollower
        }
    }

    /// How many times the store's follower was woken by another journal's
    /// append (not by its fallback timer, a wake-up with no append, or an
    /// append it found before it slept), on Linux; `nil` elsewhere or when
    /// it follows no one. For tests.
    var followerWakeUps: Int? {
        #if os(Linux)
        follower.withLock { ($0 as? AppendFollower)?.wakeUps }
        #else
        nil
        #endif
    }

    /// How many times the store's follower looked and found the store busy
    /// with a write (one under way, or the writer lock held), on Linux;
    /// `nil` elsewhere or when it follows no one. For tests.
    var followerBusyLooks: Int? {
        #if os(Linux)
        follower.withLock { ($0 as? AppendFollower)?.busyLooks }
        #else
        nil
        #endif
    }

    /// How many times the store's follower began a sleep, on Linux; `nil`
    /// elsewhere or when it follows no one. For tests.
    var followerSleeps: Int? {
        #if os(Linux)
        follower.withLock { ($0 as? AppendFollower)?.sleeps }
        #else
        nil
        #endif
    }

    /// Stops following other processes (at close, and when the store goes).
    func stopFollowing() {
        follower.withLock { watcher in
            watcher?.cancel()
            watcher = nil
        }
    }
}
