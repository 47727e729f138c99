import Dispatch
import Foundation

/// Keeps a file store's checkpoint file fresh without making commits wait.
///
/// The rule (documented on ``Store/CheckpointPolicy/fileThreshold``): the
/// file is rewritten once the journal holds `fileThreshold` events beyond it.
/// Opening asks for a write when it folded that many events or found the
/// file damaged or stale (``writeAfterOpening()``); after that every commit
/// adds its events to a counter here, and crossing the threshold queues one
/// write on a background queue. A compaction queues one too, because the
/// journal's new file identifier makes the old file useless. Closing or
/// dropping the store waits for a write in progress, and for the one
/// opening asked for, but starts none.
///
/// Writes are serialised (background and ``Store/writeCheckpoint()`` alike),
/// each reads the newest committed state when it starts, and a burst of
/// commits during a write leads to at most one more write, not one per commit.
final class CheckpointFileWriter: Sendable {
    /// The store's journal and committed state, or `nil` once the store is
    /// gone. It must not hold the store or its journal strongly: a queued
    /// write would then keep a dropped store's journal (and its file lock)
    /// open.
    typealias Source = @Sendable () -> (journal: Journal, state: StoreState)?
    typealias StepHook = @Sendable (FileReplacementStep) throws(JournalError) -> Void

    private struct Counters: Sendable {
        /// Events the journal holds beyond the checkpoint file, as far as
        /// known (over-, never under-counted: see ``CheckpointFileWriter/writeNewest(afterStep:)``).
        var beyondFile: Int
        /// Whether the file no longer matches the journal, whatever its version.
        var isStale = false
        /// Whether a background write is queued or running.
        var isQueued = false
        /// Set when the store closes or goes away: no more background writes.
        var isStopped = false
        /// Whether the write opening asked for is still to run: stopping
        /// waits for it rather than skipping it.
        var finishesBeforeStopping = false
        /// Background writes that threw (for tests and diagnostics).
        var failures = 0
    }

    let isEnabled: Bool
    private let threshold: Int
    private let checkpoints: CheckpointIndex
    private let source: Source
    private let counters: Locked<Counters>
    /// Held for the whole of each write; the value is what it last wrote.
    private let writing = Locked<LastWrite?>(nil)

    /// The version a write wrote, and the file it left: a write of the
    /// same version to the same file is skipped.
    private struct LastWrite: Sendable {
        var version: UInt64
        var file: FileIdentity
    }

    /// What tells one file at a path from another written there since:
    /// its file number, size and modification time.
    private struct FileIdentity: Equatable, Sendable {
        var number: UInt64, size: UInt64, modified: Double

        /// The identity of the file at `url`, if there is one.
        init?(_ url: URL) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
                  let number = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
                  let size = (attributes[.size] as? NSNumber)?.uint64Value,
                  let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSinceReferenceDate else { return nil }
            self.number = number
            self.size = size
            self.modified = modified
        }
    }
    private let queue = DispatchQueue(label: "Chronicle checkpoint file", qos: .utility)
    private let inFlight = DispatchGroup()
    /// Test seam: a crash or failure at a step of background writes.
    let backgroundFault = Locked<StepHook?>(nil)

    /// - Parameter eventsBeyondFile: what opening left the journal holding beyond the file.
    init(checkpoints: CheckpointIndex, isEnabled: Bool, eventsBeyondFile: Int, source: @escaping Source) {
        self.checkpoints = checkpoints
        self.isEnabled = isEnabled && checkpoints.limits.usesFile
        // At least one event: with a threshold of 0 a write would follow
        // every write, even one that added nothing.
        threshold = max(1, checkpoints.limits.fileThreshold)
        self.source = source
        counters = Locked(Counters(beyondFile: eventsBeyondFile))
    }

    /// Counts a commit's events; queues a background write when they take
    /// the journal to the threshold. O(1): this runs on the commit path.
    func didCommit(events: Int) {
        guard isEnabled else { return }
        let start = counters.withLock { counters in
            counters.beyondFile += events
            return startIfDue(&counters)
        }
        if start { queueWrite() }
    }

    /// The journal was replaced (compaction): the file, made for the old
    /// one, will never match it again, so rewrite it soon.
    func journalWasReplaced() {
        guard isEnabled else { return }
        let start = counters.withLock { counters in
            counters.isStale = true
            return startIfDue(&counters)
        }
        if start { queueWrite() }
    }

    /// Opening folded a long tail, or found the file damaged or stale:
    /// writes the file in the background now. Closing or dropping the store
    /// waits for this write rather than skip it, so that a process that
    /// opens a store, reads and ends still leaves the next open a file:
    /// the open paid for the fold the file saves.
    func writeAfterOpening() {
        guard isEnabled else { return }
        let start = counters.withLock { counters in
            counters.isStale = true
            counters.finishesBeforeStopping = true
            return startIfDue(&counters)
        }
        if start { queueWrite() }
    }

    /// Writes the newest committed state now, on the calling thread, after
    /// any write in progress. - Throws: the write's error.
    func writeNow(afterStep: StepHook? = nil) throws(JournalError) {
        try writeNewest(afterStep: afterStep)
    }

    /// Stops background writes and waits for one in progress, so the
    /// store's journal is no longer used once the store is closed or gone.
    func stop() {
        counters.withLock { $0.isStopped = true }
        inFlight.wait()
    }

    /// Test seam: waits until no background write is queued or running, or
    /// for `timeout` seconds (a test then fails instead of hanging).
    /// - Returns: whether the writer became idle.
    func waitUntilIdle(timeout: Double = 30) -> Bool { inFlight.wait(timeout: .now() + timeout) == .success }

    /// Test seam: how many background writes failed.
    var failures: Int { counters.withLock { $0.failures } }

    /// Test seam: whether ``stop()`` was called.
    var isStopped: Bool { counters.withLock { $0.isStopped } }

    // MARK: Background

    private func startIfDue(_ counters: inout Counters) -> Bool {
        guard !counters.isQueued, !counters.isStopped,
              counters.isStale || counters.beyondFile >= threshold else { return false }
        counters.isQueued = true
        return true
    }

    private func queueWrite() {
        inFlight.enter()
        queue.async { [self] in
            runQueuedWrites()
            inFlight.leave()
        }
    }

    /// Writes until the file is within the threshold again (commits may
    /// have crossed it again meanwhile). A failure is not retried until as
    /// many events again have been committed: retrying after every commit
    /// would spend O(state) per commit on a disk that is refusing writes.
    private func runQueuedWrites() {
        while true {
            let due = counters.withLock { counters -> Bool in
                let due = (!counters.isStopped || counters.finishesBeforeStopping)
                    && (counters.isStale || counters.beyondFile >= threshold)
                counters.finishesBeforeStopping = false
                if !due { counters.isQueued = false }
                return due
            }
            guard due else { return }
            do throws(JournalError) {
                try writeNewest(afterStep: backgroundFault.withLock { $0 }, backingOff: true)
            } catch {
                counters.withLock { $0.failures += 1 }
            }
        }
    }

    // MARK: Writing

    /// Writes the newest committed state. `backingOff`: count the events as
    /// written even if the write fails (see ``runQueuedWrites()``).
    private func writeNewest(afterStep: StepHook?, backingOff: Bool = false) throws(JournalError) {
        try writing.withLock { (lastWritten) throws(JournalError) in
            // Read the count before the state: commits publish their state
            // before they count, so the state holds at least these events.
            let (covered, wasStale) = counters.withLock { counters -> (Int, Bool) in
                defer { counters.isStale = false }
                return (counters.beyondFile, counters.isStale)
            }
            func advance() { counters.withLock { $0.beyondFile -= covered } }
            guard let (journal, state) = source() else {
                advance() // the store is gone: nothing is due any more
                return
            }
            // This writer wrote this very version, and the file it wrote
            // is still the one there (not deleted, nor replaced by another
            // process's): writing it again would write the same bytes (an
            // explicit write right after the one an open queued did).
            let target = journal.fileURL.map(CheckpointFile.url(for:))
            if !wasStale, let lastWritten, lastWritten.version == state.version,
               let target, FileIdentity(target) == lastWritten.file {
                advance()
                return
            }
            let written: Bool
            do throws(JournalError) {
                written = try CheckpointFile.write(state, journal: journal, afterStep: afterStep)
            } catch {
                if backingOff { advance() } else if wasStale { counters.withLock { $0.isStale = true } }
                throw error
            }
            advance()
            guard written else { return }
            lastWritten = target.flatMap(FileIdentity.init).map { LastWrite(version: state.version, file: $0) }
            checkpoints.fileStatus = .written(version: state.version)
        }
    }
}
