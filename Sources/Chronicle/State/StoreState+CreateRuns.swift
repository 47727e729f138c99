extension StoreState {
    /// Folds, at once, the run of `.create` events of `table` that starts at
    /// `events[start]`, whose records (made ahead) start at
    /// `records[created]`; returns how many events it folded. 0 when the
    /// events there must be folded one by one (then nothing changed).
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
    /// are checked (``checkCreatedValues(_:_:)``) before anything changes.
    /// The run ends before the first event that breaks a condition or whose
    /// values fail their check: that event is folded alone, event by event,
    /// which reports a failure against it.
    ///
    /// - Complexity: O(run + leaves touched × log64 n).
    mutating func foldCreateRun(_ events: [Event], from start: Int, table: Int, records: ContiguousArray<ObjectRecord>,
                                created: Int, changes: inout ChangeSetBuilder,
                                deferring pending: inout PendingIndexEntries) -> Int {
        // A run of one is folded as well one by one; checked first, it
        // costs a lone create (or a type with links) almost nothing.
        guard start + 1 < events.count, created + 1 < records.count,
              case let .create(nextTable, _, _) = events[start + 1], nextTable == table,
              tables.indices.contains(table), tables[table].deferred == nil,
              !schema[table].properties.withUnsafeBufferPointer({ $0.contains { $0.type == .object } }) else { return 0 }
        let primaryKey = tables[table].primaryKey
        var lastKey = max(tables[table].nextKey, tables[table].ownObjects.lastKey.map { $0 + 1 } ?? 0) - 1
        var lastPrimaryKey = tables[table].ownPrimaryKeyIndex.largestInteger
        var end = start
        while end < events.count, created + (end - start) < records.count,
              case let .create(eventTable, key, _) = events[end], eventTable == table, key.rawValue > lastKey {
            let record = records[created + (end - start)]
            if let primaryKey {
                guard let value = record.storage.integer(at: primaryKey), value > lastPrimaryKey else { break }
                lastPrimaryKey = value
            }
            do throws(Reason) {
                try checkCreatedValues(table, record.elements)
            } catch {
                break
            }
            lastKey = key.rawValue
            end += 1
        }
        let count = end - start
        guard count > 1 else { return 0 }
        func key(_ index: Int) -> ObjectKey {
            guard case let .create(_, key, _) = events[start + index] else { preconditionFailure("a run holds creates only") }
            return key
        }
        tables[table].appendObjects(
            count: count, key: key, record: { records[created + $0] },
            primaryKey: { records[created + $0].storage.integer(at: primaryKey.unsafelyUnwrapped).unsafelyUnwrapped },
            table: table, deferring: &pending)
        for index in 0..<count {
            changes.created(TableKey(table: table, key: key(index)), record: records[created + index], fresh: true)
        }
        return count
    }
}
