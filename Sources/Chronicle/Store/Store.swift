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
    private let publishedSequence = Atomic<UInt64>(PublishedState.firstSequence)
    let writer = WriterLock()
    private let owner = Atomic<UInt>(0)
    private let slot = TransactionSlot()
    private let bindings = Locked<[ObjectIdentifier: TableBinding]>([:])
    /// Every table binding this store made, kept for the store's life: one
    /// per class and schema it was bound in, so a few. Taken only when
    /// `bindings` has no current one (under its lock).
    let madeBindings = Locked<[TableBinding]>([])
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
    /// Folded states kept to reach old versions quickly (see Checkpoint/).
    let checkpoints: CheckpointIndex
    /// Keeps the checkpoint file next to the journal fresh, off the commit path.
    let checkpointFile: CheckpointFileWriter
    /// Follows the commits other processes append (Store+CatchUp.swift);
    /// `nil` for an in-memory store, and once closed.
    let follower = Locked<FileChangeWatcher?>(nil)

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
    }

    // A checkpoint write in progress holds the journal; wait for it, so the
    // journal closes (and its file lock is released) as the store goes.
    deinit {
        stopFollowing()
        checkpointFile.stop()
    }

    /// Folds every commit of a journal (up to `last`) into a state.
    static func fold(_ journal: Journal, upTo last: UInt64 = .max) throws(StoreError) -> StoreState {
        var state = StoreState()
        var reader = journal.reader(from: 1)
        do { try state.fold(&reader, through: last) } catch { throw StoreError(error) }
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
    /// A checkpoint file write in progress (see
    /// ``Store/CheckpointPolicy/fileThreshold``) finishes first; closing starts none.
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

    // MARK: State

    private static func threadID() -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// The state reads see: this thread's write in progress, or the last
    /// published state.
    func readableState() -> StoreState { readableSnapshot().state }

    /// The record of object `key` in `table` as reads see it (this
    /// thread's write in progress, or the last published state), without
    /// copying the state: the fast path of a managed property read.
    func readableRecord(table: Int, key: ObjectKey) -> ObjectRecord? {
        if owner.load(ordering: .acquiring) == Store.threadID(), let transaction = slot.transaction {
            return transaction.state.object(table: table, key: key)
        }
        return published.withLock { $0 }.state.object(table: table, key: key)
    }

    /// The last published (committed) state.
    func committedState() -> StoreState { published.withLock { $0 }.state }

    /// The state reads see, and its publication sequence when it is the
    /// published one (`0` inside this thread's write, whose state is not).
    func readableSnapshot() -> (state: StoreState, sequence: UInt64) {
        if owner.load(ordering: .acquiring) == Store.threadID(), let transaction = slot.transaction {
            return (transaction.state, 0)
        }
        let box = published.withLock { $0 }
        return (box.state, box.sequence)
    }

    /// Whether the published state is still the one numbered `sequence` and
    /// this thread has no write in progress, so that a record taken from
    /// that state is what a read would find now. One atomic load; no lock.
    ///
    /// Why this is exact: the sequence is stored under the same lock as the
    /// state it numbers, so a thread that saw a newer state (through the
    /// lock, or a write of its own) also sees its number; and numbers are
    /// never reused, so an equal number means the same state.
    @inline(__always)
    func isPublished(_ sequence: UInt64) -> Bool {
        publishedSequence.load(ordering: .acquiring) == sequence && owner.load(ordering: .acquiring) != Store.threadID()
    }

    /// Makes `state` the one every read sees.
    func publish(_ state: StoreState) {
        published.withLock { current in
            let next = current.sequence &+ 1
            current = PublishedState(state, sequence: next)
            publishedSequence.store(next, ordering: .releasing)
        }
    }

    /// The write in progress on this thread, if any.
    func currentTransaction() -> Transaction? {
        owner.load(ordering: .acquiring) == Store.threadID() ? slot.transaction : nil
    }

    /// Whether this thread is inside a write on this store.
    public var isInWriteTransaction: Bool { currentTransaction() != nil }

    // MARK: Bindings

    /// The binding of a model class to its table in `state`, or `nil` when
    /// the journal does not have the type yet.
    func tableBinding(for metadata: ClassMetadata, in state: StoreState) -> TableBinding? {
        let id = ObjectIdentifier(metadata.type)
        return bindings.withLock { bindings in
            if let cached = bindings[id], Self.isCurrent(cached, in: state) { return cached }
            guard let index = state.tableIndex(named: metadata.name) else {
                checkTypeNotRenamed(metadata, in: state)
                return nil
            }
            // A binding once made is kept for the store's life (a live handle
            // holds its table unretained, see `ObjectBase.liveTable`), and
            // reused when its schema is current again: reading alternately
            // from states of different schemas makes no new binding.
            let binding = madeBindings.withLock { made in
                if let earlier = made.first(where: { ObjectIdentifier($0.metadata.type) == id && Self.isCurrent($0, in: state) }) {
                    return earlier
                }
                checkReadable(metadata, in: state, made: made)
                let binding = TableBinding(store: self, index: index, metadata: metadata, schema: state.schema[index],
                                           schemaVersion: state.schemaVersion)
                made.append(binding)
                return binding
            }
            bindings[id] = binding
            return binding
        }
    }

    func tableBinding(for type: ObjectBase.Type, in state: StoreState) -> TableBinding? {
        // The store's own cache first: the class's metadata is then the
        // binding's, and the process-wide metadata cache (a second lock and
        // dictionary look-up on every call) is not asked.
        let id = ObjectIdentifier(type)
        if let cached = bindings.withLock({ $0[id] }), Self.isCurrent(cached, in: state) { return cached }
        return tableBinding(for: ClassMetadata.known(type), in: state)
    }

    /// Whether a cached binding still names its class's table in `state` (a
    /// migration can append properties, and a journal opened after
    /// compaction or replay can number tables differently): checked
    /// without looking the table up by name, a string hash per handle.
    private static func isCurrent(_ binding: TableBinding, in state: StoreState) -> Bool {
        binding.index < state.schema.count
            && state.schema[binding.index].properties.count == binding.schemaPropertyCount
            && state.schemaVersion == binding.schemaVersion
            && state.schema[binding.index].name == binding.metadata.name
    }

    /// A managed handle on the object `key` of `type`'s table, frozen in
    /// `frozenState` if it is not `nil`.
    func handle<T: ObjectBase>(_ type: T.Type, key: ObjectKey, frozenState: FrozenState?) -> T {
        let state = frozenState?.state ?? readableState()
        guard let table = tableBinding(for: type, in: state) else {
            preconditionFailure("Chronicle: the journal has no table for \(type)")
        }
        return handle(type, table: table, key: key, frozenState: frozenState)
    }

    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey, frozen: StoreState?) -> T {
        handle(type, table: table, key: key, frozenState: frozen.map(FrozenState.init))
    }

    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey, frozenState: FrozenState?) -> T {
        if let frozenState {
            return ConstructionFrame.makeHandle(type, binding: ObjectBinding(.frozen(table, key, frozenState)))
        }
        return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key, snapshot: nil, sequence: 0)
    }

    /// A handle on object `key`, found in `state`. When `state` is the
    /// published state numbered `sequence` (not `0`), the handle remembers
    /// the object's record and reads it without the lock until the next
    /// commit (see ``ObjectBase/liveSnapshot``). O(log n): one look-up now
    /// saves one per property read.
    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey, frozenState: FrozenState?,
                               in state: StoreState, sequence: UInt64) -> T {
        if let frozenState {
            return ConstructionFrame.makeHandle(type, binding: ObjectBinding(.frozen(table, key, frozenState)))
        }
        let snapshot = sequence != 0 ? state.object(table: table.index, key: key) : nil
        let snapshotSequence = snapshot == nil ? 0 : sequence
        return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key,
                                                snapshot: consume snapshot, sequence: snapshotSequence)
    }

    /// A live handle on object `key`, whose record in the published state
    /// numbered `sequence` is `snapshot`, or which `block` holds encoded in
    /// that state; with neither, the handle reads the store when it is
    /// read (`sequence` is then ignored).
    func handle<T: ObjectBase>(_ type: T.Type, table: TableBinding, key: ObjectKey,
                               snapshot: consuming ObjectRecord?, encoded block: EncodedBlock?, sequence: UInt64) -> T {
        // `consuming`, so that the caller's copy becomes the handle's
        // without another retain and release.
        let remembers = snapshot != nil || block != nil
        return ConstructionFrame.makeLiveHandle(type, store: self, table: table, key: key, snapshot: consume snapshot,
                                                encoded: block, sequence: remembers ? sequence : 0)
    }

    // MARK: Writes

    /// Runs `body` as one write transaction and commits its changes as one
    /// journal commit, blocking until the journal has it (with the
    /// configured durability).
    ///
    /// If `body` throws, nothing is committed and the error is rethrown. A
    /// write that changes nothing appends nothing. Writes do not nest.
    ///
    /// - Parameters:
    ///   - label: A label the journal keeps with the commit, e.g. `"adopt dog"`.
    ///   - metadata: String key/values the journal keeps with the commit.
    ///   - body: The changes; reads inside it see them.
    /// - Returns: What `body` returns.
    /// - Complexity: O(size of the change), plus the journal append.
    @discardableResult
    public func write<Result>(label: String? = nil, metadata: [String: String] = [:],
                              _ body: () throws -> Result) throws -> Result {
        precondition(currentTransaction() == nil,
                     "Chronicle: store.write was called inside another write on the same store; make all the changes in the outer write")
        writer.lock()
        return try performWrite(label: label, metadata: metadata, body)
    }

    /// Like ``write(label:metadata:_:)``, but suspends instead of blocking
    /// while another write holds the store.
    @discardableResult
    public func asyncWrite<Result: Sendable>(label: String? = nil, metadata: [String: String] = [:],
                                             _ body: @Sendable () throws -> Result) async throws -> Result {
        await writer.lock()
        return try performWrite(label: label, metadata: metadata, body)
    }

    private func performWrite<Result>(label: String?, metadata: [String: String], _ body: () throws -> Result) throws -> Result {
        // Other processes' commits first (Store+CatchUp.swift). The journal
        // this commit goes to: wait for durability on the same one
        // (compaction may replace it once the writer lock is released).
        let journal = try beginWrite()
        defer { journal.unlockAfterAppending() }
        let base = committedState()
        let transaction = Transaction(store: self, base: base)
        slot.transaction = transaction
        owner.store(Store.threadID(), ordering: .releasing)
        func finish() {
            transaction.finish()
            owner.store(0, ordering: .releasing)
            slot.transaction = nil
        }

        let result: Result
        do {
            result = try body()
        } catch {
            transaction.rollBack()
            finish()
            writer.unlock()
            throw error
        }
        if let failure = transaction.failure {
            transaction.rollBack()
            finish()
            writer.unlock()
            throw failure
        }
        guard !transaction.events.isEmpty else {
            finish()
            writer.unlock()
            return result
        }
        let commit = Commit(version: base.version + 1, timestamp: configuration.clock(), label: label,
                            metadata: metadata, events: transaction.events)
        let ticket: DurabilityTicket
        do {
            ticket = try journal.write(commit)
            journal.unlockAfterAppending()
        } catch {
            transaction.rollBack()
            finish()
            writer.unlock()
            throw StoreError.journal(error)
        }
        var state = transaction.state
        state.version = commit.version
        let changes = transaction.changes
        publish(state)
        checkpoints.didFold(state, events: commit.events.count)
        checkpointFile.didCommit(events: commit.events.count)
        finish()
        observers.dispatch(building: { changes.build(version: commit.version) }, footprint: changes.footprint,
                           old: base, new: state)
        writer.unlock()
        do {
            try journal.waitUntilDurable(ticket)
        } catch {
            throw StoreError.journal(error)
        }
        return result
    }

    private func transactionForWriting(_ operation: String) -> Transaction {
        guard let transaction = currentTransaction() else {
            preconditionFailure("Chronicle: \(operation) must be called inside store.write { } or store.asyncWrite { }")
        }
        return transaction
    }

    /// Adds an unmanaged object, and the unmanaged objects it links to, to
    /// the store. The instance becomes managed. Call inside a write.
    ///
    /// With a primary key that already exists, the write fails (it throws
    /// ``StoreError/rejected(_:)``); use ``add(_:update:)-(ObjectBase,_)`` to upsert.
    public func add(_ object: ObjectBase) {
        transactionForWriting("store.add").add(object, update: .error)
    }

    /// Adds an object, or updates the existing object with the same primary
    /// key: `.modified` writes only the properties whose values differ,
    /// `.all` writes every property.
    public func add(_ object: ObjectBase, update: UpdatePolicy) {
        transactionForWriting("store.add").add(object, update: update)
    }

    /// Adds each object of a sequence.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Element: ObjectBase {
        let transaction = transactionForWriting("store.add")
        for object in objects { transaction.add(object, update: update) }
    }

    /// Creates an object of `type` from property values given by name, adds
    /// it and returns the managed object.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: [String: any _PersistableProperty] = [:], update: UpdatePolicy = .error) -> T {
        let transaction = transactionForWriting("store.create")
        let object = T()
        let metadata = ClassMetadata.known(type)
        object.unmanagedStorage.withLock { values in
            for (name, value) in value {
                guard let ordinal = metadata.ordinalByName[name] else {
                    preconditionFailure("Chronicle: \(metadata.name) has no persisted property '\(name)'")
                }
                values[ordinal] = value
            }
        }
        transaction.add(object, update: update)
        return object
    }

    /// Deletes a managed object. Its embedded objects go with it; links to
    /// it become `nil`, and lists and sets that held it drop it.
    public func delete(_ object: ObjectBase) {
        transactionForWriting("store.delete").delete(object)
    }

    /// Deletes every object of a sequence (a ``Results``, say).
    public func delete<S: Sequence>(_ objects: S) where S.Element: ObjectBase {
        let transaction = transactionForWriting("store.delete")
        for object in Array(objects) { transaction.delete(object) }
    }

    /// Deletes every object of every type. The schema stays.
    public func deleteAll() {
        let transaction = transactionForWriting("store.deleteAll")
        let state = transaction.state
        for (table, schema) in state.schema.enumerated() where !schema.isEmbedded {
            for (key, _) in Array(state.objects(table: table)) {
                transaction.apply(.delete(table: table, key: key))
            }
        }
    }

    // MARK: Reads

    /// All objects of a type, as a lazy, live ``Results``.
    public func objects<Element: _ObjectProjecting>(_ type: Element.Type) -> Results<Element> {
        Results(store: self, frozen: nil)
    }

    /// The object of `type` whose primary key is `key`, or `nil`.
    ///
    /// - Complexity: O(1) expected (a hash index on the primary key).
    public func object<Element: Object, KeyType: _PersistableProperty>(ofType type: Element.Type, forPrimaryKey key: KeyType) -> Element? {
        let (state, sequence) = readableSnapshot()
        return object(ofType: type, forPrimaryKey: key, in: state, frozen: nil, sequence: sequence)
    }

    func object<Element: Object, KeyType: _PersistableProperty>(ofType type: Element.Type, forPrimaryKey key: KeyType,
                                                                in state: StoreState, frozen: StoreState?,
                                                                sequence: UInt64 = 0) -> Element? {
        let table = tableBinding(for: type, in: state)
        let metadata = table?.metadata ?? ClassMetadata.known(type)
        guard let pkOrdinal = metadata.primaryKeyOrdinal else {
            preconditionFailure("Chronicle: \(metadata.name) has no primary key; declare one with @Persisted(primaryKey: true)")
        }
        let expected = metadata.properties[pkOrdinal].kind.type
        let keyType = KeyType._propertyKind.type
        let compatible = expected == keyType || (Self.integerTypes.contains(expected) && Self.integerTypes.contains(keyType))
        precondition(compatible, "Chronicle: the primary key of \(metadata.name) is \(expected), not \(KeyType.self)")
        guard let table else { return nil }
        guard let primitive = key._primaryKeyValue,
              let objectKey = state.key(table: table.index, primaryKey: primitive) else { return nil }
        return handle(type, table: table, key: objectKey, frozenState: frozen.map(FrozenState.init), in: state, sequence: sequence)
    }

    private static let integerTypes: Set<PropertyType> = [.int, .int8, .int16, .int32, .int64]
}

/// Where the write in progress lives while its thread holds the writer lock.
final class TransactionSlot: @unchecked Sendable {
    // Safety: written only by the thread holding the store's writer lock,
    // before it publishes itself as owner and after it withdraws; read only
    // by the thread that the owner check identifies as that same thread.
    var transaction: Transaction?
}

/// An immutable published state, shared by reference.
final class PublishedState: Sendable {
    /// The sequence of the state a store opens with; `0` means "not a
    /// published state" wherever a sequence is remembered.
    static let firstSequence: UInt64 = 1
    let state: StoreState
    /// Counts publications, one per commit (or replayed step); unlike the
    /// state's version it never repeats in a store's life.
    let sequence: UInt64
    init(_ state: StoreState, sequence: UInt64) {
        self.state = state
        self.sequence = sequence
    }
}

