import Foundation

/// Folds a journal to any version, starting from the nearest checkpoint,
/// and walks the commits after a state with their change sets. The engine
/// under time travel, history and diffs, for a store and for a bare journal.
struct JournalFolder: Sendable {
    let journal: Journal
    /// Checkpoints to start from and to add to; `nil` folds from version 0.
    let checkpoints: CheckpointIndex?

    /// The newest state the folder can start from at or before `version`.
    func start(atOrBefore version: UInt64) -> StoreState {
        checkpoints?.nearest(atOrBefore: version) ?? StoreState()
    }

    /// The state after the commits `1...version`.
    ///
    /// - Throws: ``StoreError/versionOutOfRange(requested:available:)`` beyond
    ///   the journal; ``StoreError/journal(_:)`` or ``StoreError/rejected(_:)``
    ///   when a commit cannot be read or folded.
    /// - Complexity: O(events between the nearest checkpoint and `version`).
    func state(at version: UInt64) throws(StoreError) -> StoreState {
        let last = journal.lastVersion
        guard version <= last else { throw .versionOutOfRange(requested: version, available: 0...last) }
        var state = start(atOrBefore: version)
        try advance(&state, through: version) { state, commit throws(StoreError) in
            do throws(FoldError) { try state.foldInPlace(commit) } catch { throw .rejected(error) }
            return true
        }
        return state
    }

    /// Folds the commits after `state` through `version`, calling `visit`
    /// with each commit, the states before and after it and its change set;
    /// stops early when `visit` returns `false`. Keeps checkpoints on the way.
    func walk(from state: inout StoreState, through version: UInt64,
              _ visit: (Commit, StoreState, StoreState, ChangeSet) throws(StoreError) -> Bool) throws(StoreError) {
        try advance(&state, through: version) { state, commit throws(StoreError) in
            let (after, changes): (StoreState, ChangeSet)
            do throws(FoldError) { (after, changes) = try state.applying(commit) } catch { throw .rejected(error) }
            let proceed = try visit(commit, state, after, changes)
            state = after
            return proceed
        }
    }

    /// Reads the commits after `state` through `version` and lets `step`
    /// fold each into it (returning whether to go on), keeping a checkpoint
    /// every checkpoint interval of events.
    private func advance(_ state: inout StoreState, through version: UInt64,
                         _ step: (inout StoreState, Commit) throws(StoreError) -> Bool) throws(StoreError) {
        guard state.version < version else { return }
        var reader = journal.reader(from: state.version + 1)
        var events = 0
        let interval = checkpoints?.interval ?? .max
        while state.version < version {
            let next: Commit?
            do { next = try reader.next() } catch { throw .journal(error) }
            guard let commit = next else {
                throw .versionOutOfRange(requested: version, available: 0...state.version)
            }
            let proceed = try step(&state, commit)
            events += commit.events.count
            if events >= interval {
                checkpoints?.insert(state)
                events = 0
            }
            if !proceed { return }
        }
    }

    /// The commit at `version` (1 or more).
    func commit(at version: UInt64) throws(StoreError) -> Commit {
        var reader = journal.reader(from: version)
        let next: Commit?
        do { next = try reader.next() } catch { throw .journal(error) }
        guard version > 0, let commit = next else {
            throw .versionOutOfRange(requested: version, available: 0...journal.lastVersion)
        }
        return commit
    }

    /// The last version whose commit is timestamped at or before `date`
    /// (0 when none is), by binary search: commit timestamps come from the
    /// writer's clock and are taken not to go backwards.
    /// - Complexity: O(log n) commit reads.
    func lastVersion(atOrBefore date: Date, through last: UInt64) throws(StoreError) -> UInt64 {
        var low: UInt64 = 0, high = last  // invariant: answer in low...high
        while low < high {
            let middle = low + (high - low + 1) / 2
            if try commit(at: middle).timestamp <= date { low = middle } else { high = middle - 1 }
        }
        return low
    }
}
