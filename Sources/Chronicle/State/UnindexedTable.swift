/// A table as an in-memory checkpoint keeps it: its objects, primary-key
/// index and backlinks, but not its large secondary indexes, nor a large
/// hash trie of primary keys, which it builds again from the objects on
/// the first read or write that needs them (``built()``), once for every
/// state sharing it.
///
/// Why: a checkpoint shares the state's nodes, and keeps the old version
/// of each node the commits after it replace. An index over values that
/// rarely repeat is a hash trie that random inserts touch all over, so the
/// commits after a checkpoint copied nearly every one of its leaves, and
/// each checkpoint kept nearly a whole copy of the index as it was (see
/// Performance, Memory). An index of few values (a `team` of a hundred)
/// changes in a few chunks and is kept. Primary keys that are not
/// integers counted up (strings, UUIDs, object identifiers) are such a
/// hash trie too, and its copies nearly tripled what an object with an
/// `ObjectId` primary key cost; integer ids are a run or an ordered trie
/// that inserts leave shared, and are kept. The price is paid by time
/// travel, not by the store: the first fold or read from such a
/// checkpoint builds the index again, O(objects); a look-up by primary
/// key in a checkpoint without its hash trie builds it too.
///
/// Thread-safe: the parts are immutable; the built table is made once,
/// under a lock.
final class UnindexedTable: DeferredTable {
    /// The table, with the secondary indexes listed in `dropped` empty.
    private let table: Table
    /// The properties whose index was dropped.
    private let dropped: [Int]
    /// Whether the primary-key index's hash trie was dropped.
    private let droppedPrimaryKeys: Bool
    private let rebuilt = Locked<Table?>(nil)

    /// `table` (not deferred) without its indexes of at least `minimum`
    /// values and its primary-key hash trie of at least `minimum` keys,
    /// or `nil` if it has none. (An index of 1,024 values, the default,
    /// has leaves under more than one level of its hash trie, which
    /// inserts of new values copy all over.)
    init?(_ table: Table, droppingIndexesFrom minimum: Int) {
        precondition(table.deferred == nil, "UnindexedTable: the table is deferred already")
        var kept = table
        var dropped: [Int] = []
        for (property, index) in table.secondaryIndexes.enumerated() {
            guard let index, index.count >= minimum else { continue }
            dropped.append(property)
            kept.emptySecondaryIndex(property)
        }
        droppedPrimaryKeys = table.primaryKeyIndex.otherCount >= minimum
        if droppedPrimaryKeys { kept.emptyPrimaryKeyHashTrie() }
        guard !dropped.isEmpty || droppedPrimaryKeys else { return nil }
        self.table = kept
        self.dropped = dropped
    }

    var count: Int { table.objects.count }

    func record(forKey key: Int64) -> ObjectRecord? { table.objects[key] }

    func key(forPrimaryKey value: PersistedValue) -> ObjectKey? {
        if droppedPrimaryKeys, PrimaryKeyIndex.isOther(value) { return built().primaryKeyIndex[value] }
        return table.primaryKeyIndex[value]
    }

    func forEachLeaf(from start: Int64,
                     _ body: (_ base: Int64, _ bits: UInt64, _ values: UnsafeBufferPointer<ObjectRecord>) -> Bool) -> Bool {
        table.objects.forEachLeaf(from: start, body)
        return true
    }

    var backlinks: PersistentIntMap<SortedChunks<Backlink>> { table.backlinks }

    /// The table with its dropped indexes built again from its objects:
    /// O(objects × dropped indexes) the first time, then the same value.
    func built() -> Table {
        rebuilt.withLock { rebuilt in
            if let rebuilt { return rebuilt }
            var table = table
            if !dropped.isEmpty { table.fillSecondaryIndexes(dropped) }
            if droppedPrimaryKeys { table.fillPrimaryKeyHashTrie() }
            rebuilt = table
            return table
        }
    }
}
