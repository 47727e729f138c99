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
/// **Gathering.** Syncs run one at a time, so without more, committers
/// split into two halves that take turns: one half's commits are synced
/// while the other half writes, and a sync covers half of them. So when a
/// sync ends, the number of committers waiting then (the ones it released
/// and the ones that wrote during it) is taken as how many will commit
/// again soon, and a committer that could lead the next sync first waits
/// until that many commits are unsynced, or for twice as long as the last
/// sync took (at most ``maxGatherWindow``), whichever comes first. The
/// committer whose write completes the group leads at once, with no thread
/// to wake. One committer alone never waits (it expects only itself); a
/// group that shrinks costs its members the window once, after which the
/// expectation is the smaller count. Twice the sync, because one sync's
/// time was often too short for more writers than cores to commit again,
/// one after another, and without gathering a commit written during a sync
/// already waits for two. With gathering, one sync covers every durable
/// writer instead of half of them, and many writers gain much more over
/// one (see the "Performance" article).
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
    /// Committers inside ``waitLocked(_:sync:led:)`` (waiting, or leading a sync).
    private var waiters = 0
    /// How many unsynced commits a committer that could lead waits for
    /// (the waiters when the last sync ended), until `gatherDeadline`.
    private var expectedCommits = 0
    private var gatherDeadline = ContinuousClock.now
    /// The longest a committer waits for others before leading a sync, however
    /// long the last sync took: a stalled disk should not make the next
    /// groups wait twice as long.
    static let maxGatherWindow = Duration.milliseconds(2)

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
    func waitUntilSynced(_ version: UInt64, sync: (UInt64) throws(JournalError) -> Void) throws(JournalError) {
        condition.lock()
        var led = false
        defer { unlockWaking(led) }
        try waitLocked(version, sync: sync, led: &led)
    }

    /// Unlocks, then wakes every waiter if this thread led a sync. Waking
    /// them after unlocking spares each woken waiter from finding the lock
    /// still held and sleeping again on it.
    private func unlockWaking(_ led: Bool) {
        condition.unlock()
        if led { condition.broadcast() }
    }

    /// With batched durability: syncs only if at least `backlog` versions are
    /// unsynced, waiting until `version` is durable in that case.
    func waitIfBacklog(_ backlog: Int, version: UInt64, sync: (UInt64) throws(JournalError) -> Void) throws(JournalError) {
        condition.lock()
        var led = false
        defer { unlockWaking(led) }
        if synced >= version { return }
        if let failure { throw .failed(reason: failure.description) }
        if written - synced >= UInt64(max(backlog, 1)) { try waitLocked(version, sync: sync, led: &led) }
    }

    /// Waits until `version` is synced, leading a sync if needed (then sets
    /// `led`: the caller wakes the others once it has unlocked).
    private func waitLocked(_ version: UInt64, sync: (UInt64) throws(JournalError) -> Void, led: inout Bool) throws(JournalError) {
        if synced >= version { return }
        waiters += 1
        defer { waiters -= 1 }
        while synced < version {
            if let failure { throw .failed(reason: failure.description) }
            if syncing {
                condition.wait()
            } else if written - synced < UInt64(expectedCommits), ContinuousClock.now < gatherDeadline {
                // Every gathering waiter sets its own timer, so the group is
                // synced by the deadline even if nobody else writes.
                wait(until: gatherDeadline)
            } else {
                led = true
                if let error = lead(sync) { throw error }
            }
        }
    }

    /// Waits on `condition` until `deadline` or a wake-up, whichever is first.
    private func wait(until deadline: ContinuousClock.Instant) {
        let remaining = deadline - .now
        guard remaining > .zero else { return }
        let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) * 1e-18
        _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
    }

    /// Syncs everything written so far (`sync` gets the newest version
    /// written). Called and returns with the lock held;
    /// releases it during the sync. The caller wakes the waiters after.
    /// Returns the sync's error, if any.
    private func lead(_ sync: (UInt64) throws(JournalError) -> Void) -> JournalError? {
        syncing = true
        let target = written
        condition.unlock()
        var error: JournalError?
        let started = ContinuousClock.now
        do { try sync(target) } catch let failed { error = failed }
        let ended = ContinuousClock.now
        condition.lock()
        syncing = false
        if let error {
            if failure == nil { failure = error }
        } else {
            synced = max(synced, target)
            dirtySince = written > synced ? .now : nil
            expectedCommits = waiters
            // A sum, not `* 2`: multiplying a `Duration` by an integer is a
            // generic call of several hundred instructions, on every sync.
            let took = ended - started
            gatherDeadline = ended + min(took + took, Self.maxGatherWindow)
        }
        return error
    }

    /// The batched flusher's loop: syncs `maxDelay` after the oldest unsynced
    /// write, until ``stop()``. Runs on its own thread.
    func runFlusher(maxDelay: Duration, sync: (UInt64) throws(JournalError) -> Void) {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            guard failure == nil, written > synced, let since = dirtySince else {
                condition.wait()
                continue
            }
            if since + maxDelay > .now {
                wait(until: since + maxDelay)
            } else if syncing {
                condition.wait()
            } else {
                _ = lead(sync)
                condition.broadcast()
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
