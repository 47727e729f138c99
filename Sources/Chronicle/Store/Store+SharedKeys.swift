// Object keys that no process of a shared store reuses.

extension Store {
    /// The lowest key of table `table` that no write of any process sharing
    /// this store's journal handed out yet, committed or rolled back, as far
    /// as the processes recorded (0 for a store no other process shares).
    ///
    /// Why: a write that rolls back leaves the instances it added bound to
    /// the keys it gave them (``Transaction/rollBack()``), to be added again
    /// at those keys. The journal never saw those keys, so another process,
    /// folding only the journal, would hand them out again, and the instance
    /// would then read, and its re-add overwrite, that process's object.
    /// Every process takes its keys above this mark, and raises it when a
    /// write ends (``raiseSharedKeyHighWater(_:)``); a write hands out keys
    /// only holding the journal's process lock, so no two processes hand out
    /// one key.
    ///
    /// - Complexity: O(1): an atomic load from memory the processes share.
    func sharedKeyHighWater(table: Int) -> Int64 {
        Int64(clamping: journal.sharedCounter(table))
    }

    /// Records that the writes of this process handed out keys below
    /// `nextKeys[table]` in each table (0: none), for the other processes
    /// (``sharedKeyHighWater(table:)``). Call when a write ends, holding the
    /// writer lock; does nothing for a store no other process shares.
    func raiseSharedKeyHighWater(_ nextKeys: [Int64]) {
        let journal = self.journal
        guard journal.isShared else { return }
        for (table, next) in nextKeys.enumerated() where next > 0 {
            journal.raiseSharedCounter(table, to: UInt64(next))
        }
    }
}
