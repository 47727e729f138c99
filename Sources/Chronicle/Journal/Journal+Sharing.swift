import Dispatch
import Foundation

extension Journal {
    /// Whether other processes may append to this journal's file
    /// (``init(sharedFileURL:durability:)``).
    public var isShared: Bool { core.processLock != nil }

    /// Reads the commits that other processes appended to the file since
    /// this journal last looked, so that ``lastVersion``, ``commits(from:)``,
    /// ``reader(from:)`` and ``asyncCommits(from:)`` include them from now on.
    ///
    /// For a journal opened with ``init(sharedFileURL:durability:)`` or
    /// ``init(contentsOf:)``; a journal no other process can append to (an
    /// exclusive writer, or one in memory) has nothing to catch up with.
    /// Takes no lock another process waits for: a commit that another
    /// process is writing right now is left for a later call, never taken
    /// for a torn tail, and nothing in the file is changed.
    ///
    /// - Returns: ``lastVersion`` after catching up.
    /// - Throws: ``JournalError/damaged(offset:lastGoodVersion:reason:)`` if
    ///   an appended record is whole but holds the wrong version or does not
    ///   decode; ``JournalError/closed``; ``JournalError/io(operation:errno:path:)``.
    /// - Complexity: O(1) when nothing was appended; otherwise O(size of
    ///   the new records).
    @discardableResult
    public func catchUp() throws(JournalError) -> UInt64 {
        guard isShared || (isReadOnly && fileURL != nil) else {
            if core.state.withLock({ $0.isClosed }) { throw .closed }
            return lastVersion
        }
        return try core.catchUp(holdingProcessLock: false)
    }

    /// Blocks until the journal holds a commit after `version` (catching up
    /// with other processes as their commits arrive), or until `timeout`.
    ///
    /// Woken by a file-change notification (inotify on Linux, a dispatch
    /// source on Apple platforms), and, should one be missed, by a poll at
    /// least every ``followFallbackInterval``: nothing the caller must loop on.
    ///
    /// - Returns: whether a commit after `version` is there (`false`: the
    ///   timeout passed first).
    /// - Throws: what ``catchUp()`` throws.
    public func waitForCommits(after version: UInt64, timeout: Duration? = nil) throws(JournalError) -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        let changed = DispatchSemaphore(value: 0)
        let watcher = fileURL.map { url in
            FileChangeWatcher(path: url.path, fallback: Self.followFallbackInterval, queue: .global()) { changed.signal() }
        }
        defer { watcher?.cancel() }
        while true {
            if try catchUp() > version { return true }
            var wait = Self.followFallbackInterval
            if let deadline {
                let remaining = deadline - .now
                if remaining <= .zero { return false }
                wait = min(wait, remaining)
            }
            _ = changed.wait(timeout: .now() + .nanoseconds(Int(wait / .nanoseconds(1))))
        }
    }

    /// The longest a follower (``waitForCommits(after:timeout:)``, a store
    /// following other processes) goes without looking at the file, should
    /// a change notification be missed or the file system send none.
    public static let followFallbackInterval = Duration.milliseconds(250)

    // MARK: The store's write path

    /// Whether another process (or journal) may have appended commits this
    /// journal has not read: on Linux, whether another journal appended
    /// since this one last did (the shared area's append count, no system
    /// call); elsewhere, and for a journal that is not shared, `false`
    /// (nothing tells without looking at the file).
    var othersMayHaveAppended: Bool {
        #if os(Linux)
        core.sharedArea?.othersAppendedSinceOwnAppend ?? false
        #else
        false
        #endif
    }

    /// Takes the process lock of a shared journal and catches up holding it
    /// (cutting a torn tail): the start of a store's write, which then
    /// appends with ``write(_:)`` and ends with ``unlockAfterAppending()``.
    /// Does nothing for a journal that is not shared.
    /// - Throws: what ``JournalCore/catchUp(holdingProcessLock:evenIfClosed:)``
    ///   throws (the lock is then released).
    func lockForAppending() throws(JournalError) {
        guard let lock = core.processLock else { return }
        try lock.lock()
        do throws(JournalError) {
            try core.catchUp(holdingProcessLock: true)
        } catch {
            lock.unlock()
            throw error
        }
    }

    /// Releases what ``lockForAppending()`` took, then tells the other
    /// processes about the append (``SharedJournalArea/didAppend()``).
    func unlockAfterAppending() {
        guard let lock = core.processLock, lock.isHeldByCurrentThread else { return }
        lock.unlock()
        core.sharedArea?.didAppend()
    }

    /// Cuts the reserved zeros off the file (at close). A shared journal
    /// first finds the file's true end under the process lock: its own idea
    /// of the end may be behind other processes' appends. It leaves them
    /// while another journal has the file open, whose appends use them
    /// (its catch-ups take zeros after the last record for reserved
    /// space): the last to close cuts them. Best effort: the next open
    /// that has the file alone cuts them too.
    func releaseReservation() {
        guard let lock = core.processLock else {
            core.releaseReservation()
            return
        }
        try? lock.withLock { () throws(JournalError) in
            try core.catchUp(holdingProcessLock: true, evenIfClosed: true)
            // Closing unlocks the file next: the exclusive lock is not kept.
            guard tryUseFileAlone() else { return }
            core.releaseReservation()
        }
    }

    /// Tries to take the journal file for this journal alone (compaction):
    /// `true` if no other process or journal has it open. Call holding the
    /// process lock (``lockForAppending()``). A journal that is not shared
    /// has the file alone already.
    func tryUseFileAlone() -> Bool {
        guard isShared, let file = core.storage as? JournalFile else { return true }
        return file.tryLockExclusively()
    }

    /// Gives back what ``tryUseFileAlone()`` took, when the file stays in
    /// use (compaction failed before replacing it): other processes may open
    /// it again.
    func shareFileAgain() {
        guard isShared, let file = core.storage as? JournalFile else { return }
        file.lockShared()
    }
}

extension Journal {
    /// Counter `index` of the counters every process sharing this journal
    /// sees (kept in `<journal name>.shared`, never reset): 0 if no process
    /// raised it, and always 0 for a journal that is not shared.
    /// - Complexity: O(1): an atomic load from shared memory.
    func sharedCounter(_ index: Int) -> UInt64 {
        core.sharedArea?.counter(index) ?? 0
    }

    /// Raises shared counter `index` to `value`, unless it is higher
    /// already (atomically, so raises from several processes never lose
    /// the highest). Does nothing for a journal that is not shared.
    func raiseSharedCounter(_ index: Int, to value: UInt64) {
        core.sharedArea?.raiseCounter(index, to: value)
    }
}
