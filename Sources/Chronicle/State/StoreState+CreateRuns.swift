extension StoreState {
    /// Folds, at once, the run of creates (taken out of a commit's events,
    /// their records made ahead) that starts at `creates[start]`: those of
    /// its table that came before the same event; returns how many it
    /// folded. 0 when the creates there must be folded one by one (then
    /// nothing changed).
    ///
    /// A commit that creates many objects of one type — a bulk insert, an
    /// import, most of a journal a cold open folds — gives their keys in
    /// ascending order, and usually ascending integer primary keys too.
    /// Such a run needs no look-up to find a key or primary key already
    /// used, and both tries take it leaf by leaf
    /// (``Table/appendObjects(count:key:record:primaryKey:table:deferring:)``)
    /// instead of one walk from the root per object.
    ///
    /// The run is what the event-by-event fold would make of it, and is
    /// taken only where that is plain to see: a table not deferred, with no
    /// link property (a link's target and ownership need the objects before
    /// it); object keys ascending from the table's next key; integer primary
    /// keys ascending from above the index's largest. Every object's values
    /// are checked (``checkCreatedValues(_:_:)``; a record of a plain type
    /// holding a value of each property's kind by its header word alone,
    /// ``RecordStorage/plainWord(_:)``) before anything changes.
    /// The run ends before the first event that breaks a condition or whose
    /// values fail their check: that event is folded alone, event by event,
    /// which reports a failure against it.
    ///
    /// - Complexity: O(run + leaves touched × log64 n).
    mutating func foldCreateRun(_ creates: ContiguousArray<DecodedCreate>, from start: Int,
                                changes: inout ChangeSetBuilder, deferring pending: inout PendingIndexEntries) -> Int {
        let table = creates[start].table, before = creates[start].before
        // A run of one is folded as well one by one; checked first, it
        // costs a lone create (or a type with links) almost nothing.
        guard start + 1 < creates.count, creates[start + 1].table == table, creates[start + 1].before == before,
              tables.indices.contains(table), tables[table].deferred == nil,
              !schema[table].properties.withUnsafeBufferPointer({ $0.contains { $0.type == .object } }) else { return 0 }
        let primaryKey = tables[table].primaryKey
        // A record whose header word is this one passes the checks below
        // with that one comparison (most records of a plain type do).
        let plainWord = schema[table].properties.withUnsafeBufferPointer(RecordStorage.plainWord)
        var lastKey = max(tables[table].nextKey, tables[table].ownObjects.lastKey.map { $0 + 1 } ?? 0) - 1
        var lastPrimaryKey = tables[table].ownPrimaryKeyIndex.largestInteger
        var end = start
        while end < creates.count, creates[end].table == table, creates[end].before == before,
              creates[end].key.rawValue > lastKey {
            let record = creates[end].record
            if let primaryKey {
                guard let value = record.storage.integer(at: primaryKey), value > lastPrimaryKey else { break }
                lastPrimaryKey = value
            }
            if plainWord == nil || record.storage.word != plainWord {
                do throws(Reason) {
                    try checkCreatedValues(table, record.elements)
                } catch {
                    break
                }
            }
            lastKey = creates[end].key.rawValue
            end += 1
        }
        let count = end - start
        guard count > 1 else { return 0 }
        // Read through a pointer: the array's subscript copied each create
        // it was asked for (retaining its record) to read one field.
        creates.withUnsafeBufferPointer { creates in
            let run = UnsafeBufferPointer(rebasing: creates[start..<end])
            tables[table].appendObjects(
                count: count, key: { run[$0].key }, record: { run[$0].record },
                primaryKey: { run[$0].record.storage.integer(at: primaryKey.unsafelyUnwrapped).unsafelyUnwrapped },
                table: table, deferring: &pending)
            for index in run.indices {
                changes.created(TableKey(table: table, key: run[index].key), record: run[index].record, fresh: true)
            }
        }
        return count
    }
}
