/// The numbers the checkpoint engine works to: the store's
/// ``Store/CheckpointPolicy`` as this layer sees it (the policy is part of
/// the store's configuration, a layer above).
struct CheckpointLimits: Sendable, Hashable {
    /// Events between in-memory checkpoints; at least 1.
    var interval: Int
    /// In-memory checkpoints kept at most (older ones are thinned).
    var maximumInMemory: Int
    /// Whether a checkpoint file is kept next to the journal.
    var usesFile: Bool
    /// Events folded beyond the checkpoint file before it is rewritten.
    var fileThreshold: Int
    /// Tables of at least this many objects that no link touches are read
    /// lazily from the checkpoint file.
    var lazyTableMinimum: Int
    /// Secondary indexes of at least this many values, and primary-key
    /// hash tries of at least this many keys, are left out of in-memory
    /// checkpoints, and built again when one is used (``UnindexedTable``).
    var unindexedMinimum = 1024
}
