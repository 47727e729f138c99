/// A table whose objects are still where they were loaded from (a mapped
/// checkpoint file): it answers the reads a store makes most — one object
/// by key, one by primary key, the count — without building the table, and
/// builds the whole ``Table`` once, on the first read or write that needs
/// it (``built()``), for every state that shares it.
///
/// A table deferred to a checkpoint file holds no links and nothing links
/// to it, so its backlinks are known to be empty without building it (see
/// ``CheckpointTable`` for which tables are deferred); one an in-memory
/// checkpoint keeps without its large indexes (``UnindexedTable``) has
/// its backlinks at hand.
///
/// Implementations are immutable apart from caches, and thread-safe.
protocol DeferredTable: AnyObject, Sendable {
    /// The number of objects. O(1).
    var count: Int { get }

    /// The record of object `key`, exactly as the built table holds it.
    func record(forKey key: Int64) -> ObjectRecord?

    /// The object whose primary key is `value`, exactly as the built table
    /// finds it.
    func key(forPrimaryKey value: PersistedValue) -> ObjectKey?

    /// Calls `body` with the objects whose keys are `>= start` as the built
    /// table's `objects.forEachLeaf(from:_:)` would (but a leaf may come in
    /// several calls, each with its part of the bits), reading them
    /// from where they are stored, if the table is not built and reading
    /// them so is worth it; returns `false`, having called nothing, if not
    /// (the caller then reads the built table).
    func forEachLeaf(from start: Int64,
                     _ body: (_ base: Int64, _ bits: UInt64, _ values: UnsafeBufferPointer<ObjectRecord>) -> Bool) -> Bool

    /// The whole table: built on the first call, then the same value. Never
    /// fails: a table whose stored form turns out damaged is rebuilt from
    /// the source of truth (the journal).
    func built() -> Table

    /// The links into the table's objects, without building it.
    var backlinks: PersistentIntMap<SortedChunks<Backlink>> { get }
}

extension DeferredTable {
    /// None: a table deferred to a checkpoint file holds no links and
    /// nothing links to it (see ``CheckpointTable``).
    var backlinks: PersistentIntMap<SortedChunks<Backlink>> { PersistentIntMap() }
}
