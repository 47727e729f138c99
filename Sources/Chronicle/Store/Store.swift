import Foundation
import Synchronization

/// A store of live objects whose single source of truth is a journal.
///
/// Every write appends one commit of events to the journal; the store folds
/// the journal into an immutable, versioned state that objects, collections
/// and projections read. Readers never block writers: they read the last
/// published state. Writers are serialised.
///
/// ```swift
/// let store = try Store(configuration: .init(fileURL: url))
/// try store.write { store.add(person) }
/// let adults = store.objects(Person.self).filter(#Predicate { $0.age >= 18 })
/// ```
///
/// A store is `Sendable`: share one instance per journal file across tasks.
/// Several processes may open the same file at once; each sees the others'
/// commits (see <doc:SeveralProcesses>).
public final class Store: Sendable {
    /// How the store was opened.
    public let configuration: Configuration
    /// The journal; replaced (under the writer lock) by ``compact(keepingLast:)``.
    let journalBox: Locked<Journal>
    /// The journal commits go to now.
    var journal: Journal { journalBox.withLock { $0 } }
    /// The last published state, boxed: a read takes the lock only to
    /// retain the box (one reference count), instead of copying the state
    /// struct (one per table array, schema and name index).
    let published: Locked<PublishedState>
    /// The ``PublishedState/sequence`` of the state in `published`, stored
    /// while its lock is held: a handle that remembers the record it was
    /// made from checks it with one atomic load instead of taking the lock
    /// (see ``isPublished(_:)``).
    let publishedSequence = Atomic<UInt64>(PublishedState.firstSequence)
    let writer = WriterLock()
    /// The thread whose write is in progress (`currentThreadID()`), `0` for
    /// none: reads on that thread see the write's state (Store+Publication.swift).
    let owner = Atomic<UInt>(0)
    /// The write in progress (Store+Writing.swift).
    let slot = TransactionSlot()
    /// Per model class, its binding to its table in the current schema
    /// (Store+Bindings.swift).
    let bindings = Locked<[ObjectIdentifier: TableBinding]>([:])
    /// Every table binding this store made, kept for the store's life: one
    /// per class and schema it was bound in, so a few. Taken only when
    /// `bindings` has no current one (under its lock).
    let madeBindings = Locked<[TableBinding]>([])
    /// The binding ``tableBinding(for:in:)`` returned last, unretained
    /// (`Unmanaged` bits; `0` for none): the one a run of reads of one
    /// class asks for again, found with one atomic load instead of the
    /// lock and a dictionary look-up. Every binding lives as long as the
    /// store (``madeBindings``), so the bits never dangle.
    let lastBinding = Atomic<UInt>(0)
    /// Per older version a class was bound in, what the migrations since
    /// did to its schema (see ``migrationLineage(since:)``).
    let migrationLineages = Locked<[UInt64: MigrationLineage]>([:])
    /// Per table, the lowest object key no write of this process handed out
    /// yet, committed or rolled back (see ``Transaction/newKey(table:)``).
    let keyHighWater = Locked<[Int: Int64]>([:])
    /// The objects an `add` bound an instance to in a write that then rolled
    /// back, until a write adds the instance again: such an instance is created
    /// anew at its key by the next `add`. Kept here rather than in the
    /// instances, so that a write need not hold every instance it adds until it
    /// ends (to mark them if it rolls back): one the caller lets go of is freed
    /// at once, while its memory is still in the cache, instead of every
    /// instance together, cold, at the end of a large write. Grows only with
    /// adds that rolled back and were not retried, by one table-and-key entry
    /// each.
    let rolledBackAdds = Locked<Set<TableKey>>([])
    let observers = ObserverRegistry()
    /// Told of each commit, for the sync client (Store/CommitListeners.swift).
    let commitListeners = CommitListeners()
    /// Folded states kept to reach old versions quickly (see Checkpoint/).
    let checkpoints: CheckpointIndex
    /// Keeps the checkpoint file next to the journal fresh, off the commit path.
    let checkpointFile: CheckpointFileWriter
    /// Follows the commits other processes append (Store+CatchUp.swift);
    /// `nil` for an in-memory store, and once closed.
    let follower = Locked<(any CommitFollower)?>(nil)
    /// How the follower reaches this store, without a weak reference
    /// (Store/StoreRelay.swift).
    let followRelay = StoreRelay()
    /// The `write`s and `asyncWrite`s of this store under way: while there
    /// are any, the follower leaves the other processes' commits to their
    /// catch-ups (Store+CatchUp.swift).
    let writesUnderWay = WritesUnderWay()

    /// Opens the store: opens (or creates) the journal and folds it.
    ///
    /// - Throws: ``StoreError/journal(_:)`` when the journal cannot be
    ///   opened or is damaged; ``StoreError/schema(_:)`` when a class in
    ///   ``Configuration/objectTypes`` does not match the journal, or the
    ///   journal's schema version is newer than ``Configuration/schemaVersion``,
    ///   or the migration to it fails (see <doc:EvolvingYourSchema>).
    public init(configuration: Configuration) throws(StoreError) {
        self.configuration = configuration
        let journal: Journal
        var candidate: Result<CheckpointFile.Candidate, CheckpointFile.Rejection>?
        do {
            if let url = configuration.fileURL {
                // The checkpoint file first: the journal need not check the records it covers.
                candidate = Store.checkpointCandidate(for: url, policy: configuration.checkpoints)
                let prefix = try? candidate?.get().layout.prefix
                journal = try Journal(sharedFileURL: url, durability: configuration.durability, trusting: prefix)
            } else {
                journal = Journal.inMemory()
            }
        } catch {
            throw .journal(error)
        }
        journalBox = Locked(journal)
        let checkpoints = CheckpointIndex(policy: configuration.checkpoints)
        self.checkpoints = checkpoints
        let opened = try Store.open(journal, checkpoints: checkpoints, candidate: candidate)
        let published = Locked(PublishedState(opened.state, sequence: PublishedState.firstSequence))
        self.published = published
        let journalBox = self.journalBox
        checkpointFile = CheckpointFileWriter(checkpoints: checkpoints, isEnabled: journal.fileURL != nil,
                                              eventsBeyondFile: opened.eventsBeyondFile) { [weak journalBox, weak published] in
            guard let journalBox, let published else { return nil }
            return (journalBox.withLock { $0 }, published.withLock { $0 }.state)
        }
        try migrateIfNeeded()
        if let types = configuration.objectTypes, !types.isEmpty {
            do {
                try write(label: "schema") {
                    for type in types { _ = currentTransaction()!.register(type) }
                }
            } catch let error as StoreError {
                throw error
            } catch {
                preconditionFailure("Chronicle: unexpected error while registering the schema: \(error)")
            }
        }
        startFollowing()
        if opened.fileIsDue { checkpointFile.writeAfterOpening() }
        // Last, not at the end of the fold: the rest of the open frees
        // blocks too, which a release then would leave resident.
        if opened.releasesFreedMemory { FreedMemory.release() }
    }

    // A checkpoint write in progress holds the journal; wait for it, so the
    // journal closes (and its file lock is released) as the store goes.
    deinit {
        followRelay.retire()
        stopFollowing()
        checkpointFile.stop()
    }

    /// Folds every commit of a journal (up to `last`) into a state.
    static func fold(_ journal: Journal, upTo last: UInt64 = .max) throws(StoreError) -> StoreState {
        var state = StoreState()
        do { try state.foldReadingAhead(journal.reader(from: 1), through: last) } catch { throw StoreError(error) }
        return state
    }

    /// Closes the journal: flushes what it has not yet synced and releases
    /// the file lock, so the file can be opened again. The store stays
    /// readable (its state is in memory); writes throw
    /// ``StoreError/journal(_:)`` with ``JournalError/closed``.
    ///
    /// Closing is optional: a store closes its journal when it and every
    /// object, collection and stream that uses it are gone.
    ///
    /// A checkpoint file write in progress, or the one opening asked for
    /// (see ``Store/CheckpointPolicy/fileThreshold``), finishes first;
    /// closing starts none.
    public func close() throws(StoreError) {
        stopFollowing()
        checkpointFile.stop()
        do { try journal.close() } catch { throw .journal(error) }
    }

    /// The journal the store appends to. Read it (`commits(from:)`,
    /// `reader(from:)`) to see what each write recorded; appending to it
    /// directly bypasses the store and is not supported.
    public var journalForReading: Journal { journal }

    /// The version of the last commit (0 for an empty store).
    public var version: UInt64 { readableState().version }
}
