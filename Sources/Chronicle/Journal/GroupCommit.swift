import Foundation

/// Group commit: many committers, one sync.
///
/// Writers report each version they wrote (``didWrite(_:)``). A committer
/// that needs version `v` durable either finds it already synced, waits for a
/// sync in progress, or becomes the leader: it notes the newest written
/// version, syncs once with no lock held, and wakes everyone that sync
/// covered. A failed sync is recorded and never retried: every later wait
/// throws.
///
/// `@unchecked Sendable`: every `var` below is read and written only while
/// `condition` is locked; the sync itself runs with the lock released.
final class GroupCommit: @unchecked Sendable {
    private let condition = NSCondition()
    private var written: UInt64
    private var synced: UInt64
    private var syncing = false
    private var failure: JournalError?
    /// When the oldest unsynced write happened (for the batched flusher).
    private var dirtySince: ContinuousClock.Instant?
    private var stopped = false
    /// Whether a flusher thread waits on `condition` for new writes.
    private let hasFlusher: Bool

    init(durableVersion: UInt64, hasFlusher: Bool) {
        written = durableVersion
        synced = durableVersion
        self.hasFlusher = hasFlusher
    }

    /// Records that `version` is written (called in version order, under the journal's lock).
    func didWrite(_ version: UInt64) {
        condition.lock()
        defer { condition.unlock() }
        if written == synced {
            dirtySince = .now
            if hasFlusher { condition.broadcast() }
        }
        written = max(written, version)
    }

    /// Records a failed write, so waiters stop waiting.
    func fail(_ error: JournalError) {
        condition.lock()
        defer { condition.unlock() }
        if failure == nil { failure = error }
        condition.broadcast()
    }

    /// The newest version written.
    var writtenVersion: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return written
    }

    /// Returns once `version` is durable, syncing (as leader) if no sync in
    /// progress covers it.
    func waitUntilSynced(_ version: UInt64, sync: () throws(JournalError) -> Void) throws(JournalError) {
        condition.lock()
        defer { condition.unlock() }
        try waitLocked(version, sync: sync)
    }

    /// With batched durability: syncs only if at least `backlog` versions are
    /// unsynced, waiting until `version` is durable in that case.
    func waitIfBacklog(_ backlog: Int, version: UInt64, sync: () throws(JournalError) -> Void) throws(JournalError) {
        condition.lock()
        defer { condition.unlock() }
        if synced >= version { return }
        if let failure { throw .failed(reason: failure.description) }
        if written - synced >= UInt64(max(backlog, 1)) { try waitLocked(version, sync: sync) }
    }

    private func waitLocked(_ version: UInt64, sync: () throws(JournalError) -> Void) throws(JournalError) {
        while synced < version {
            if let failure { throw .failed(reason: failure.description) }
            if syncing {
                condition.wait()
            } else if let error = lead(sync) {
                throw error
            }
        }
    }

    /// Syncs everything written so far. Called and returns with the lock held;
    /// releases it during the sync. Returns the sync's error, if any.
    private func lead(_ sync: () throws(JournalError) -> Void) -> JournalError? {
        syncing = true
        let target = written
        condition.unlock()
        var error: JournalError?
        do { try sync() } catch let failed { error = failed }
        condition.lock()
        syncing = false
        if let error {
            if failure == nil { failure = error }
        } else {
            synced = max(synced, target)
            dirtySince = written > synced ? .now : nil
        }
        condition.broadcast()
        return error
    }

    /// The batched flusher's loop: syncs `maxDelay` after the oldest unsynced
    /// write, until ``stop()``. Runs on its own thread.
    func runFlusher(maxDelay: Duration, sync: () throws(JournalError) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            guard failure == nil, written > synced, let since = dirtySince else {
                condition.wait()
                continue
            }
            let remaining = since + maxDelay - .now
            if remaining > .zero {
                let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) * 1e-18
                _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
            } else if syncing {
                condition.wait()
            } else {
                _ = lead(sync)
            }
        }
    }

    /// Ends ``runFlusher(maxDelay:sync:)``.
    func stop() {
        condition.lock()
        defer { condition.unlock() }
        stopped = true
        condition.broadcast()
    }
}
