/// A store's in-memory checkpoints: retained states, sorted by version, with
/// the empty state (version 0) always implied.
///
/// States share structure, so a checkpoint costs only the nodes the commits
/// after it copied. Thread-safe.
final class CheckpointIndex: Sendable {
    private struct Storage: Sendable {
        /// Checkpoints in ascending version order; never version 0.
        var states: [StoreState] = []
        /// Events folded at the head since the newest checkpoint.
        var eventsSinceLast = 0
        var interval: Int
    }

    /// What became of the checkpoint file when the store opened (for diagnostics and tests).
    enum FileStatus: Sendable, Equatable {
        case none
        case loaded(version: UInt64)
        case rejected(CheckpointFile.Rejection)
        case written(version: UInt64)
    }

    let limits: CheckpointLimits
    private let storage: Locked<Storage>
    private let status = Locked<FileStatus>(.none)

    /// The last thing that happened to the checkpoint file.
    var fileStatus: FileStatus {
        get { status.withLock { $0 } }
        set { status.withLock { $0 = newValue } }
    }

    init(limits: CheckpointLimits) {
        self.limits = limits
        storage = Locked(Storage(interval: limits.interval))
    }

    /// The current spacing, in events (it doubles when checkpoints are thinned).
    var interval: Int { storage.withLock { $0.interval } }

    /// The number of checkpoints held.
    var count: Int { storage.withLock { $0.states.count } }

    /// The versions of the checkpoints held, ascending.
    var versions: [UInt64] { storage.withLock { $0.states.map(\.version) } }

    /// The newest checkpoint at or before `version`, or the empty state. O(log n).
    func nearest(atOrBefore version: UInt64) -> StoreState {
        storage.withLock { storage in
            let position = storage.states.partitionPoint { $0.version > version }
            return position == 0 ? StoreState() : storage.states[position - 1]
        }
    }

    /// The newest checkpoint before which object `key` of `table` was never
    /// created (its table's next key is at most `key`), or the empty state.
    /// Keys are never reused, so folding from there sees the object's whole life.
    func lastBeforeCreation(table: Int, key: ObjectKey, atOrBefore version: UInt64) -> StoreState {
        storage.withLock { storage in
            let limit = storage.states.partitionPoint { $0.version > version }
            // nextKey only grows, so "not created yet" is a prefix of the checkpoints.
            let position = storage.states[..<limit].partitionPoint { $0.nextKey(table: table) > key }
            return position == 0 ? StoreState() : storage.states[position - 1]
        }
    }

    /// Records the state after a commit of `events` events folded at the
    /// head; keeps it when the interval is reached.
    func didFold(_ state: StoreState, events: Int) {
        storage.withLock { storage in
            storage.eventsSinceLast += events
            guard storage.eventsSinceLast >= storage.interval else { return }
            storage.eventsSinceLast = 0
            if let last = storage.states.last, last.version >= state.version { return }
            storage.states.append(kept(state))
            thin(&storage)
        }
    }

    /// Keeps `state` as a checkpoint (one folded off the head, or loaded from a file).
    func insert(_ state: StoreState) {
        guard state.version > 0 else { return }
        storage.withLock { storage in
            let position = storage.states.partitionPoint { $0.version >= state.version }
            if position < storage.states.count, storage.states[position].version == state.version { return }
            storage.states.insert(kept(state), at: position)
            thin(&storage)
        }
    }

    /// `state` as a checkpoint keeps it: without its large secondary
    /// indexes (``UnindexedTable``), which the commits after it would
    /// otherwise copy for it to keep. O(tables × properties).
    private func kept(_ state: StoreState) -> StoreState {
        var kept = state
        for table in kept.tables.indices {
            kept.tables[table] = kept.tables[table].withoutLargeIndexes(from: limits.unindexedMinimum)
        }
        return kept
    }

    /// Drops every other checkpoint (keeping the newest) while there are too many.
    private func thin(_ storage: inout Storage) {
        while storage.states.count > limits.maximumInMemory {
            let newest = storage.states.count - 1
            storage.states = storage.states.enumerated().filter { ($0.offset - newest) % 2 == 0 }.map(\.element)
            storage.interval *= 2
        }
    }
}
