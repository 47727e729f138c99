import Foundation

/// A journal replayed into a new in-memory store, commit by commit, with
/// chosen commits left out: the state as if they had never happened.
///
/// Made by ``Store/replaying(_:through:excluding:paused:)``. The replaying
/// ``store`` is an ordinary in-memory store: read it, freeze it, observe it.
/// Each folded commit is published like a write, so observers registered on
/// the store see the commits as they are folded — step through them with
/// ``step()`` or ``advance(to:)``:
///
/// ```swift
/// let replay = try Store.replaying(journal, excluding: [12], paused: true)
/// let token = replay.store.objects(Dog.self).observe { print($0) }
/// while let step = try replay.step() {
///     print(step.commit.version, step.changes.insertions.count, step.skippedEvents)
/// }
/// ```
///
/// An excluded commit becomes an empty commit (same label, metadata
/// `chronicle.replay: excluded`), so versions stay aligned with the source.
/// A later event that no longer applies is skipped and reported in
/// ``skippedEvents`` (attributed to an excluded commit) instead of failing
/// the replay; the others apply. Types and properties are renumbered when a
/// schema event did not happen.
///
/// A migration replays onto the state without the excluded commits: the
/// fold recomputes what its schema changes do. The values its closure set
/// cannot be recomputed, so a migration that set values of an object an
/// excluded commit changed stops the replay before it
/// (``StoreError/migrationDependsOnExcludedCommit(migration:excluded:type:)``).
public final class Replay: Sendable {
    /// The in-memory store the commits are folded into.
    public let store: Store
    /// The journal being replayed.
    public let source: Journal
    /// The last source version the replay folds.
    public let lastVersion: UInt64
    /// The source versions left out.
    public let excluded: Set<UInt64>

    private struct Progress: Sendable {
        var reader: CommitReader
        var remapping = EventRemapping()
        var skipped: [SkippedEvent] = []
        /// Per excluded commit folded so far: the objects and tables it touched (source indexes).
        var exclusions: [(version: UInt64, objects: Set<TableKey>, tables: Set<Int>)] = []
    }
    private let progress: Locked<Progress>

    init(store: Store, source: Journal, lastVersion: UInt64, excluded: Set<UInt64>) {
        self.store = store
        self.source = source
        self.lastVersion = lastVersion
        self.excluded = excluded
        progress = Locked(Progress(reader: source.reader(from: 1)))
    }

    /// The next source version ``step()`` folds.
    public var nextVersion: UInt64 { progress.withLock { $0.reader.nextVersion } }

    /// Whether every commit through ``lastVersion`` has been folded.
    public var isFinished: Bool { nextVersion > lastVersion }

    /// Every event skipped so far, in source order.
    public var skippedEvents: [SkippedEvent] { progress.withLock { $0.skipped } }

    /// The skipped events blamed on the excluded commit `version`.
    public func skippedEvents(causedBy version: UInt64) -> [SkippedEvent] {
        skippedEvents.filter { $0.cause == version }
    }

    /// Folds the next source commit into the store, publishes it and
    /// dispatches its change set to the store's observers.
    ///
    /// - Returns: what was folded, or `nil` when the replay is finished.
    /// - Throws: ``StoreError/journal(_:)`` when the source cannot be read;
    ///   ``StoreError/migrationDependsOnExcludedCommit(migration:excluded:type:)``
    ///   when the next commit is a migration whose recorded values follow
    ///   from an excluded commit (the replay then stays before it).
    /// - Complexity: O(size of the commit).
    @discardableResult
    public func step() throws(StoreError) -> ReplayStep? {
        store.writer.lock()
        defer { store.writer.unlock() }
        let folded = try progress.withLock { (progress) throws(StoreError) -> (ReplayStep, StoreState, StoreState)? in
            guard progress.reader.nextVersion <= lastVersion else { return nil }
            let reader = progress.reader
            let next: Commit?
            do throws(JournalError) { next = try progress.reader.next() } catch { throw .journal(error) }
            guard let commit = next else { return nil }
            if !excluded.contains(commit.version), !progress.exclusions.isEmpty {
                do throws(StoreError) { try checkMigration(commit, progress) } catch {
                    // Stay before the commit: stepping again meets it again.
                    progress.reader = reader
                    throw error
                }
            }
            return try fold(commit, &progress)
        }
        guard let (step, old, new) = folded else { return nil }
        // Outside the progress lock: observers may read the replay.
        store.observers.dispatch(step.changes, old: old, new: new)
        return step
    }

    /// Folds source commits until ``nextVersion`` is past `version` (or the replay is finished).
    /// - Throws: as ``step()``.
    public func advance(to version: UInt64) throws(StoreError) {
        while nextVersion <= min(version, lastVersion) {
            guard try step() != nil else { return }
        }
    }

    /// Folds every remaining commit through ``lastVersion``.
    /// - Throws: as ``step()``.
    public func finish() throws(StoreError) {
        try advance(to: lastVersion)
    }

    private func fold(_ commit: Commit, _ progress: inout Progress) throws(StoreError) -> (ReplayStep, StoreState, StoreState) {
        let base = store.committedState()
        var state = base
        var builder = ChangeSetBuilder()
        var applied: [Event] = []
        var skipped: [SkippedEvent] = []
        var metadata = commit.metadata
        let isExcluded = excluded.contains(commit.version)
        if isExcluded {
            var objects = Set<TableKey>(), tables = Set<Int>()
            for event in commit.events {
                switch event {
                case .defineType: tables.insert(progress.remapping.sourceTableCount)
                case .addProperty(let table, _): tables.insert(table)
                default: if let target = event.target { objects.insert(TableKey(table: target.table, key: target.key)) }
                }
                progress.remapping.record(event, appliedIn: nil)
            }
            progress.exclusions.append((commit.version, objects, tables))
            metadata["chronicle.replay"] = "excluded"
        } else {
            for (index, event) in commit.events.enumerated() {
                let outcome: Result<Event, FoldError>
                switch progress.remapping.map(event) {
                case .failure(let reason):
                    outcome = .failure(FoldError(event: event, eventIndex: index, reason: reason))
                case .success(let mapped):
                    do {
                        try state.apply(mapped, changes: &builder)
                        outcome = .success(mapped)
                    } catch {
                        outcome = .failure(FoldError(event: event, eventIndex: index, reason: error.reason))
                    }
                }
                switch outcome {
                case .success(let mapped):
                    applied.append(mapped)
                    progress.remapping.record(event, appliedIn: state)
                case .failure(let error):
                    progress.remapping.record(event, appliedIn: nil)
                    skipped.append(SkippedEvent(version: commit.version, eventIndex: index, event: event, error: error,
                                                cause: blame(event, progress.exclusions)))
                }
            }
            if !skipped.isEmpty { metadata["chronicle.replay"] = "\(skipped.count) events skipped" }
        }
        let replayed = Commit(version: base.version + 1, timestamp: commit.timestamp, label: commit.label,
                              metadata: metadata, events: applied)
        do { try store.journal.append(replayed) } catch { throw .journal(error) }
        state.version = replayed.version
        let changes = builder.build(version: replayed.version)
        store.publish(state)
        store.checkpoints.didFold(state, events: applied.count)
        progress.skipped.append(contentsOf: skipped)
        return (ReplayStep(commit: commit, version: replayed.version, isExcluded: isExcluded, changes: changes,
                           skippedEvents: skipped), base, state)
    }

    /// Throws if `commit` is a migration that sets values of an object an
    /// excluded commit changed: its closure may have read them, and its
    /// recorded values do not follow from the replayed state. What a
    /// migration changes by its schema changes alone (a conversion, a
    /// default, a rename) is recomputed by the fold, and needs no check.
    /// - Complexity: O(events of the commit) when it is a migration, O(1)
    ///   for the first event otherwise.
    private func checkMigration(_ commit: Commit, _ progress: Progress) throws(StoreError) {
        guard commit.metadata[Store.MigrationMetadata.fromKey] != nil
                || commit.events.contains(where: { if case .changeSchema = $0 { true } else { false } }) else { return }
        for event in commit.events {
            guard let target = event.target,
                  let match = progress.exclusions.last(where: { $0.objects.contains(TableKey(table: target.table, key: target.key)) })
            else { continue }
            // Named as the replay has the type before the migration.
            let schema = store.committedState().schema
            let table = (try? progress.remapping.map(event).get())?.target?.table
            let type = table.flatMap { schema.indices.contains($0) ? schema[$0].name : nil } ?? "type \(target.table)"
            throw .migrationDependsOnExcludedCommit(migration: commit.version, excluded: match.version, type: type)
        }
    }

    /// The excluded commit an inapplicable event is blamed on.
    private func blame(_ event: Event, _ exclusions: [(version: UInt64, objects: Set<TableKey>, tables: Set<Int>)]) -> UInt64? {
        var table: Int?
        switch event {
        case .addProperty(let t, _): table = t
        default: table = event.target?.table
        }
        if let target = event.target,
           let match = exclusions.last(where: { $0.objects.contains(TableKey(table: target.table, key: target.key)) }) {
            return match.version
        }
        if let table, let match = exclusions.last(where: { $0.tables.contains(table) }) { return match.version }
        return exclusions.last?.version
    }
}

extension Store {
    /// Replays a journal into a new in-memory store, leaving out the
    /// commits in `excluded`: the state as if they had not happened.
    ///
    /// ```swift
    /// let copy = try Journal(contentsOf: url)          // a journal someone sent you
    /// let replay = try Store.replaying(copy, through: 40, excluding: [12])
    /// let dogs = replay.store.objects(Dog.self)         // as if commit 12 never happened
    /// for skipped in replay.skippedEvents(causedBy: 12) { print(skipped.version, skipped.error) }
    /// ```
    ///
    /// - Parameters:
    ///   - journal: The journal to replay; it is only read.
    ///   - version: The last version to fold; the journal's last by default.
    ///   - excluded: Source versions to leave out.
    ///   - paused: Fold nothing yet, so observers can be registered first;
    ///     then call ``Replay/step()``, ``Replay/advance(to:)`` or ``Replay/finish()``.
    /// - Throws: ``StoreError/versionOutOfRange(requested:available:)`` for a
    ///   version beyond the journal; ``StoreError/journal(_:)`` when it cannot be read.
    /// - Complexity: O(events folded).
    public static func replaying(_ journal: Journal, through version: UInt64? = nil, excluding excluded: Set<UInt64> = [],
                                 paused: Bool = false) throws(StoreError) -> Replay {
        try replaying(journal, through: version, excluding: excluded, paused: paused, clock: { Date() })
    }
}
