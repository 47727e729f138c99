import Foundation

/// Folds a journal to any version, starting from the nearest checkpoint,
/// and walks the commits after a state with their change sets. The engine
/// under time travel, history and diffs, for a store and for a bare journal.
struct TimeTravel: Sendable {
    let journal: Journal
    /// Checkpoints to start from and to add to; `nil` folds from version 0.
    let checkpoints: CheckpointIndex?

    /// The newest state a fold can start from at or before `version`.
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
        guard state.version < version else { return state }
        var reader = journal.reader(from: state.version + 1)
        var spacing = CheckpointSpacing(checkpoints)
        do {
            try state.fold(&reader, through: version) { state, events in
                spacing.didFold(state, events: events)
                return true
            }
        } catch {
            throw StoreError(error)
        }
        guard state.version == version else { throw .versionOutOfRange(requested: version, available: 0...state.version) }
        return state
    }

    /// Folds the commits after `state` through `version`, calling `visit`
    /// with each commit, the states before and after it and its change set;
    /// stops early when `visit` returns `false`. Keeps checkpoints on the way.
    func walk(from state: inout StoreState, through version: UInt64,
              _ visit: (Commit, StoreState, StoreState, ChangeSet) throws(StoreError) -> Bool) throws(StoreError) {
        guard state.version < version else { return }
        var reader = journal.reader(from: state.version + 1)
        var spacing = CheckpointSpacing(checkpoints)
        var stopped = false
        try state.walk(&reader, through: version, failure: StoreError.init) { (commit, before, after, changes) throws(StoreError) in
            let proceed = try visit(commit, before, after, changes)
            spacing.didFold(after, events: commit.events.count)
            stopped = !proceed
            return proceed
        }
        guard stopped || state.version == version else {
            throw .versionOutOfRange(requested: version, available: 0...state.version)
        }
    }

    /// Keeps a checkpoint every checkpoint interval of events folded.
    private struct CheckpointSpacing {
        let checkpoints: CheckpointIndex?
        let interval: Int
        var events = 0

        init(_ checkpoints: CheckpointIndex?) {
            self.checkpoints = checkpoints
            interval = checkpoints?.interval ?? .max
        }

        mutating func didFold(_ state: borrowing StoreState, events count: Int) {
            events += count
            guard events >= interval else { return }
            checkpoints?.insert(copy state)
            events = 0
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
