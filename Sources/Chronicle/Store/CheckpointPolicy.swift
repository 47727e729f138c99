extension Store {
    /// When a store keeps checkpoints: folded states it can start from
    /// instead of folding the journal from the beginning.
    ///
    /// Checkpoints are caches. In memory, a checkpoint is a retained
    /// ``StoreState`` (cheap: states share structure). On disk, it is a file
    /// next to the journal (`<journal>.checkpoint`) holding one encoded state;
    /// deleting it loses nothing, and one that fails its checksums or does not
    /// match the journal is ignored and rebuilt, never trusted (a block
    /// found damaged after the open rebuilds its table from the journal).
    ///
    /// Reaching an old version (``Store/frozen(at:)-(UInt64)``) costs a fold of at most
    /// about ``interval`` events from the nearest checkpoint; opening a large
    /// journal maps the checkpoint file, reads its large tables from it as
    /// they are used, checks the journal's records it covers only when
    /// history reads them, and folds only the commits after it (see
    /// <doc:Performance>, Open).
    public struct CheckpointPolicy: Sendable, Hashable {
        /// Events folded between two in-memory checkpoints. A checkpoint is
        /// taken after the first commit that reaches the interval.
        public var interval: Int
        /// The most in-memory checkpoints kept. When there would be more,
        /// every other one is dropped and the interval doubles, so memory stays
        /// bounded while the cost of reaching a version grows slowly.
        ///
        /// Each checkpoint keeps the nodes and records the commits after it
        /// replaced: with random updates spread over a large store that can
        /// approach the size of the store itself (see the measurements in
        /// <doc:DebuggingWithTheJournal>), so raise this for faster time
        /// travel only where memory allows. A checkpoint keeps no
        /// secondary index of 1,024 values or more, which random inserts
        /// would make it keep a copy of: time travel from it builds the
        /// index again from the objects the first time.
        public var maximumInMemory: Int
        /// Whether a file store keeps a checkpoint file next to its journal.
        public var usesFile: Bool
        /// How many events the journal may hold beyond the checkpoint file
        /// (or in all, without one) before the store writes a new one.
        ///
        /// The rule, so that opening never folds much more than this many
        /// events:
        /// - **Opening** writes the file when it folded at least this many
        ///   events, or found the file damaged or stale: on a background
        ///   queue, as soon as the store is open, so that the first read
        ///   does not wait for it (writing a large state's file costs about
        ///   as much as its fold). Closing, or the store going away, waits for
        ///   this write: a process that opens, reads and ends still leaves
        ///   the file for the next open.
        /// - **While the store is open**, once commits since the file add
        ///   up to this many events, the store writes the file again on a
        ///   background queue: commits never wait for it. Commits made
        ///   during that write lead to at most one more. A compaction
        ///   (which gives the journal a new identity) is followed by one too.
        ///   A failed write is a cache miss, not an error: the store tries
        ///   again after as many events again.
        /// - **Closing** (``Store/close()``, or the store going away) waits
        ///   for a write in progress (and opening's) but starts none.
        ///
        /// Why not write at every close: the write costs O(size of the
        /// state) — a large store's multi-megabyte file and two syncs —
        /// while folding a short tail at the next open costs little, and a
        /// process that is killed never closes, so only a rule driven by
        /// the journal's growth bounds what the next open folds.
        /// ``Store/writeCheckpoint()`` writes the file at any time.
        public var fileThreshold: Int
        /// Tables of at least this many objects that no link touches are
        /// read lazily from the checkpoint file at open (see
        /// <doc:Performance>); smaller ones are decoded at once. Internal:
        /// tests lower it to reach the lazy path with small stores.
        var lazyTableMinimum = 4096
        /// In-memory checkpoints leave out secondary indexes of at least
        /// this many values, and a primary-key hash trie (keys that are
        /// not integers) of at least this many keys (see
        /// <doc:Performance>, Memory). Internal: tests lower it to leave
        /// out every index.
        var unindexedMinimum = 1024

        /// A policy. The defaults keep memory modest; journals beyond about
        /// `interval × maximumInMemory` events get sparser checkpoints.
        public init(interval: Int = 4096, maximumInMemory: Int = 64, usesFile: Bool = true, fileThreshold: Int = 100_000) {
            self.interval = max(1, interval)
            self.maximumInMemory = max(2, maximumInMemory)
            self.usesFile = usesFile
            self.fileThreshold = max(0, fileThreshold)
        }

        /// The default policy.
        public static var `default`: CheckpointPolicy { CheckpointPolicy() }

        /// No checkpoint file; in-memory checkpoints only.
        public static var inMemoryOnly: CheckpointPolicy { CheckpointPolicy(usesFile: false) }
    }
}

extension Store.CheckpointPolicy {
    /// The policy as the checkpoint engine reads it.
    var limits: CheckpointLimits {
        CheckpointLimits(interval: interval, maximumInMemory: maximumInMemory, usesFile: usesFile,
                         fileThreshold: fileThreshold, lazyTableMinimum: lazyTableMinimum, unindexedMinimum: unindexedMinimum)
    }
}

extension CheckpointIndex {
    /// An index keeping checkpoints as `policy` says.
    convenience init(policy: Store.CheckpointPolicy) {
        self.init(limits: policy.limits)
    }
}
