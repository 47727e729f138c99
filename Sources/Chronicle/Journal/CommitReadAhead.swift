import Foundation

/// Reads and decodes a journal's commits on another thread, ahead of the
/// thread that folds them: checking and decoding records is a large part
/// of opening a store without a checkpoint file, and on a second core it
/// overlaps the fold instead of preceding it.
///
/// The commits come out in journal order, in batches, exactly as the
/// ``CommitReader`` would yield them one at a time, then its error if it
/// stopped on one. At most ``capacity`` batches wait, so memory stays
/// bounded whatever the journal's size.
///
/// `@unchecked Sendable`: every stored `var` is read and written only
/// while `condition` is locked; the reader is used by the reading thread
/// alone until it ends (``finish()`` waits for that).
final class CommitReadAhead: @unchecked Sendable {
    /// A batch ends after this many events (or ``batchCommits`` commits).
    static let batchEvents = 4096
    static let batchCommits = 256
    /// Batches decoded but not yet taken, at most.
    static let capacity = 4
    /// Journals with fewer bytes than this to read are read in line: the
    /// thread's start and hand-overs would cost more than they save.
    static let minimumBytes = 1 << 20

    private let condition = NSCondition()
    private var ready: [[Commit]] = []
    /// Batches the folding thread is done with, for the reading thread to
    /// free: their memory came from its allocator arena, and freeing it
    /// there is cheaper and off the folding thread's path.
    private var spent: [[Commit]] = []
    private var failure: JournalError?
    private var isDone = false
    private var isCancelled = false
    private var hasExited = false
    /// The reader as the reading thread left it.
    private var finalReader: CommitReader

    /// Starts reading `reader`'s commits through version `last`.
    init(_ reader: CommitReader, through last: UInt64) {
        finalReader = reader
        let thread = Thread { [self] in read(reader, through: last) }
        thread.name = "Chronicle journal read-ahead"
        thread.start()
    }

    private func read(_ reader: CommitReader, through last: UInt64) {
        var reader = reader
        var ended = false
        while !ended {
            var batch: [Commit] = []
            var events = 0
            var failed: JournalError?
            do throws(JournalError) {
                while events < Self.batchEvents, batch.count < Self.batchCommits {
                    guard reader.nextVersion <= last, let commit = try reader.next() else {
                        ended = true
                        break
                    }
                    events += commit.events.count
                    batch.append(commit)
                }
            } catch {
                (failed, ended) = (error, true)
            }
            condition.lock()
            while ready.count >= Self.capacity, !isCancelled { condition.wait() }
            var freeing = spent
            spent = []
            if isCancelled { ended = true }
            if !batch.isEmpty, !isCancelled { ready.append(batch) }
            if ended {
                (failure, isDone, finalReader, hasExited) = (failed, true, reader, true)
            }
            condition.broadcast()
            condition.unlock()
            freeing.removeAll()
        }
    }

    /// The next batch, in journal order; `nil` once every commit was taken.
    /// `done` is the batch before, handed back to be freed.
    /// - Throws: the reader's error, after the commits before it.
    func next(handingBack done: consuming [Commit]) throws(JournalError) -> [Commit]? {
        condition.lock()
        defer { condition.unlock() }
        if !done.isEmpty, !isDone { spent.append(done) }
        while ready.isEmpty, !isDone { condition.wait() }
        if !ready.isEmpty {
            condition.broadcast()
            return ready.removeFirst()
        }
        if let failure { throw failure }
        return nil
    }

    /// Stops reading (if it has not ended) and waits for the reading
    /// thread to let go of the reader. Returns the reader, spent: past
    /// the last commit read, which may be after the last one taken.
    func finish() -> CommitReader {
        condition.lock()
        defer { condition.unlock() }
        isCancelled = true
        condition.broadcast()
        while !hasExited { condition.wait() }
        return finalReader
    }
}
