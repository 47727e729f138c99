import Foundation

/// Something that hands out a journal's commits in order: a
/// ``CommitReader``, or a ``CommitReadAhead`` reading one on a thread of
/// its own. What ``StoreState``'s journal folds read from.
protocol CommitSource {
    /// The next commit, `nil` after the last; throws what the reader throws.
    mutating func next() throws(JournalError) -> Commit?

    /// What the source's reading thread made of the commit ``next()``
    /// last returned (see ``CommitReadAhead/Read``), `nil` if it has
    /// no such thread.
    mutating func takePrepared() -> (any Sendable)?
}

extension CommitSource {
    mutating func takePrepared() -> (any Sendable)? { nil }
}

extension CommitReader: CommitSource {}

/// Reads and decodes a journal's commits on a thread of its own, ahead of
/// the thread that folds them: opening a store whose journal is long (no
/// checkpoint file, a first launch, a file from another machine) reads on
/// one core and folds on another.
///
/// Reading a record — its framing, its checksum, decoding its events —
/// costs about as much as folding it (see the "Performance" article,
/// Open), and the two share nothing: the reader owns
/// its ``CommitReader``, and the commits it hands over are values.
///
/// Semantics:
/// - **Order.** ``next()`` returns the commits in the reader's order, then
///   `nil`; if reading failed, it throws the reader's error once the
///   commits before it have been returned, and again at every later call.
/// - **Buffering.** The thread hands over batches of about
///   ``batchEvents`` events (a commit bigger than that is a batch alone)
///   and stays at most ``depth`` batches ahead, so the commits read and not
///   yet folded stay bounded.
/// - **Ending early.** The last reference going (a fold that stops before
///   the end: an error, or a fold to an earlier version) tells the thread
///   to stop after the commit it is reading; it then lets its reader, and
///   so the journal, go. Nothing waits for it.
/// - **One at a time.** One thread, kept for the process, reads for every
///   fold (see `worker`); a fold that starts while it reads for another
///   gets no read-ahead and reads for itself.
/// - **Preparing.** The thread reads each commit with the fold's
///   ``Read``, which may make more of it than the commit, handed over with
///   it (``takePrepared()``): ``StoreState``'s read takes each `.create`
///   event out of the commit's events and decodes its values straight
///   into the object's record, so no event or array of values is made per
///   object, and the records a fold keeps lie next to one another. A
///   commit handed out then is for that fold alone.
/// - **Freeing.** A batch the fold has gone through goes back to the
///   thread, which lets it go when it next hands one over: destroying a
///   batch's events is work the folding thread need not do, and what they
///   hold was allocated in the reading thread's allocator arena, whose
///   lock a free on another thread contends for. Once the journal is read
///   the thread stays to free the batches still to come back, until the
///   fold has taken the end (or the read-ahead is let go): the last
///   ``depth`` batches were otherwise freed on the folding thread.
///
/// The thread holds only the channel between the two, never this object,
/// so the last reference to it going stops the thread.
final class CommitReadAhead: CommitSource {
    /// About how many events a batch holds.
    static let batchEvents = 4_096
    /// How many batches the thread stays ahead at most.
    static let depth = 4
    /// The least a reader must have left to read for a thread to pay for
    /// itself (starting one costs tens of microseconds; this much journal
    /// takes milliseconds to fold).
    static let minimumBytes = 256 * 1024

    /// How the reading thread reads the next commit from the reader, and
    /// what else it makes of it (see "Preparing"); `nil` after the last.
    typealias Read = @Sendable (inout CommitReader) throws(JournalError) -> ReadCommit?

    /// A commit and what the ``Read`` that read it made of it besides.
    struct ReadCommit: Sendable {
        let commit: Commit
        let prepared: (any Sendable)?
        /// How many events the commit holds as written, those the read
        /// took out of its events into `prepared` included: what a batch's
        /// size counts.
        let events: Int

        init(_ commit: Commit, prepared: (any Sendable)?, events: Int? = nil) {
            self.commit = commit
            self.prepared = prepared
            self.events = events ?? commit.events.count
        }
    }

    /// Reads a commit and nothing more.
    private static let plainRead: Read = { reader throws(JournalError) in
        try reader.next().map { ReadCommit($0, prepared: nil) }
    }

    private let channel = Channel()
    private var current: [ReadCommit] = []
    private var index = 0
    private var done = false
    private var prepared: (any Sendable)?

    /// Starts reading `reader` on the read-ahead thread, each commit with
    /// `read` (by default, the commit alone); `nil` if the thread is
    /// reading for another fold (the caller then reads itself).
    init?(_ reader: CommitReader, read: Read? = nil) {
        guard Self.worker.start(channel, reader, read ?? Self.plainRead) else { return nil }
    }

    /// The one thread every read-ahead reads on, started with the first.
    ///
    /// One thread for the process, kept, rather than one per fold: what a
    /// fold keeps may be made on the reading thread (see "Preparing"),
    /// so in its allocator arena, and a new thread each
    /// time could take another arena, leaving the last fold's freed memory
    /// in one arena while the next fold grows another (four folds of 1M
    /// players in one process ended at 358 MB resident against 217 MB read
    /// on the folding thread). One thread keeps reusing one arena.
    private static let worker = Worker()

    deinit { channel.stop() }

    /// Whether reading `reader` ahead pays: it has enough left to read,
    /// and the machine more than one core to read it on.
    static func worthwhile(for reader: CommitReader) -> Bool {
        reader.remainingBytes >= minimumBytes && ProcessInfo.processInfo.activeProcessorCount > 1
    }

    /// The next commit; see the type's semantics. O(1) amortised; waits
    /// while the thread has not read it yet.
    func next() throws(JournalError) -> Commit? {
        if index < current.count {
            defer { index += 1 }
            prepared = current[index].prepared
            return current[index].commit
        }
        if done { return nil }
        switch try channel.take(returning: &current) {
        case nil:
            done = true
            current = []
            return nil
        case let batch?:
            current = batch
            index = 1
            prepared = batch[0].prepared
            return batch[0].commit
        }
    }

    func takePrepared() -> (any Sendable)? {
        defer { prepared = nil }
        return prepared
    }

    /// The read-ahead thread: waits for a channel and its reader, reads,
    /// and waits again. It blocks forever between folds, costing its stack.
    ///
    /// `@unchecked Sendable`: `job` and `busy` are read and written only
    /// holding `condition`.
    private final class Worker: @unchecked Sendable {
        private let condition = NSCondition()
        private var job: (Channel, CommitReader, Read)?
        private var busy = false
        private var started = false

        /// Hands the thread `reader` to read into `channel`; `false` if it
        /// is busy with another.
        func start(_ channel: Channel, _ reader: CommitReader, _ read: @escaping Read) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            guard !busy else { return false }
            busy = true
            job = (channel, reader, read)
            if !started {
                started = true
                let thread = Thread { [self] in run() }
                thread.name = "Chronicle read-ahead"
                thread.start()
            }
            condition.signal()
            return true
        }

        private func run() {
            while true {
                condition.lock()
                while job == nil { condition.wait() }
                let (channel, reader, read) = job!
                job = nil
                condition.unlock()
                channel.read(reader, read)
                condition.lock()
                busy = false
                condition.unlock()
            }
        }
    }

    /// The batches between the reading thread and the folding one.
    ///
    /// `@unchecked Sendable`: every stored property is read and written only
    /// holding `condition`.
    private final class Channel: @unchecked Sendable {
        private let condition = NSCondition()
        private var batches: [[ReadCommit]] = []
        /// Batches folded, for the reading thread to let go (see "Freeing").
        private var spent: [[ReadCommit]] = []
        private var failure: JournalError?
        private var finished = false
        private var stopped = false
        /// The fold took the end: no batch comes back after this.
        private var drained = false

        /// The next batch (never empty), `nil` after the last, or the
        /// reader's error once the batches before it are taken. `folded`,
        /// the batch before, goes to the reading thread to free (emptied
        /// here, under the lock: a reference the folding thread kept past
        /// it could be the last, and free the batch on that thread).
        func take(returning folded: inout [ReadCommit]) throws(JournalError) -> [ReadCommit]? {
            condition.lock()
            if !folded.isEmpty {
                spent.append(folded)
                folded = []
            }
            while batches.isEmpty && !finished { condition.wait() }
            let batch = batches.isEmpty ? nil : batches.removeFirst()
            if batch == nil { drained = true }
            let failure = failure
            condition.signal()
            condition.unlock()
            if batch == nil, let failure { throw failure }
            return batch
        }

        func stop() {
            condition.lock()
            stopped = true
            condition.broadcast()
            condition.unlock()
        }

        /// The thread's loop: reads `reader` to its end, its first error,
        /// or the stop.
        func read(_ reader: CommitReader, _ read: Read) {
            var reader = reader
            var batch: [ReadCommit] = []
            var events = 0
            /// Hands `batch` over, waiting for room; `false` once stopped.
            func handOver(finishing: Bool, failure: JournalError? = nil) -> Bool {
                condition.lock()
                let folded = spent
                spent = []
                // Freed here, after the lock (see "Freeing").
                defer { withExtendedLifetime(folded) {} }
                defer { condition.unlock() }
                while batches.count >= CommitReadAhead.depth && !stopped { condition.wait() }
                if stopped { return false }
                if !batch.isEmpty { batches.append(batch) }
                if finishing {
                    finished = true
                    self.failure = failure
                }
                condition.signal()
                batch = []
                events = 0
                return true
            }
            while true {
                do {
                    guard let commit = try read(&reader) else {
                        if handOver(finishing: true) { freeSpentUntilDrained() }
                        return
                    }
                    // Counting the commit too: many small commits make a batch as well.
                    events += commit.events + 1
                    batch.append(commit)
                    if events >= CommitReadAhead.batchEvents, !handOver(finishing: false) { return }
                } catch {
                    if handOver(finishing: true, failure: error) { freeSpentUntilDrained() }
                    return
                }
            }
        }

        /// After the last hand-over: frees each batch the fold gives back
        /// (see "Freeing"), until it has taken the end or stopped.
        private func freeSpentUntilDrained() {
            while true {
                condition.lock()
                while spent.isEmpty && !drained && !stopped { condition.wait() }
                let folded = spent
                spent = []
                let ended = drained || stopped
                condition.unlock()
                withExtendedLifetime(folded) {}
                if ended { return }
            }
        }
    }
}
