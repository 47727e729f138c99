/// Secondary-index entries a fold has yet to file: the keys of the objects
/// a run of `.create` events made, by table, indexed property and value.
///
/// Filing a new object under its indexed value walks the value's hash trie
/// and edits its key list, once per object: most of what the fold does for
/// an object of a type with an indexed property. A commit that creates many
/// objects mostly repeats a few values (teams, statuses, owners); gathered
/// here, each value's keys are filed with one walk
/// (``StoreState/fileIndexEntries(_:)``). Nothing in between reads the
/// secondary indexes — a create's checks read the primary-key index, which
/// stays filed per object — and the fold files the gathered entries before
/// any other event and at the end of each commit, so every state a fold
/// hands out has its indexes whole.
struct PendingIndexEntries {
    /// Where a run's keys go, and the keys, in the order the objects were made.
    struct Entry {
        let table: Int
        let property: Int
        let value: PersistedValue
        /// `value.trieHash`, which the index's walk takes too.
        let hash: UInt64
        var keys: ContiguousArray<ObjectKey>
    }

    /// The entries, in the order their values first came.
    private(set) var entries: [Entry] = []
    /// Open addressing over `entries` by hash: each slot an entry's
    /// position plus one, 0 when free. A power of two, at most half full.
    // Not a `Dictionary`: hashing a `PersistedValue` with `Hasher`
    // (normalising a string first) cost more than the walk saved.
    private var slots = [Int32](repeating: 0, count: 16)

    var isEmpty: Bool { entries.isEmpty }

    /// Notes that object `key` of `table` goes under `value` in the index
    /// of `property`. O(1) expected.
    mutating func add(_ key: ObjectKey, table: Int, property: Int, value: PersistedValue) {
        let hash = value.trieHash
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash ^ UInt64(truncatingIfNeeded: property &* 31 &+ table)) & mask
        while true {
            let position = Int(slots[slot]) - 1
            if position < 0 { break }
            if entries[position].hash == hash, entries[position].property == property,
               entries[position].table == table, entries[position].value == value {
                entries[position].keys.append(key)
                return
            }
            slot = (slot + 1) & mask
        }
        entries.append(Entry(table: table, property: property, value: value, hash: hash, keys: [key]))
        slots[slot] = Int32(entries.count)
        if entries.count * 2 > slots.count { rehash(capacity: slots.count * 2) }
    }

    private mutating func rehash(capacity: Int) {
        slots = [Int32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (position, entry) in entries.enumerated() {
            var slot = Int(truncatingIfNeeded: entry.hash ^ UInt64(truncatingIfNeeded: entry.property &* 31 &+ entry.table)) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position + 1)
        }
    }

    /// Empties the list, keeping its storage for the next run.
    mutating func removeAll() {
        guard !entries.isEmpty else { return }
        entries.removeAll(keepingCapacity: true)
        for index in slots.indices { slots[index] = 0 }
    }
}

extension StoreState {
    /// Files every entry of `pending` in its table's secondary index and
    /// empties it: one walk per indexed value, not per object.
    ///
    /// - Complexity: O(values × log n + keys × log chunk).
    mutating func fileIndexEntries(_ pending: inout PendingIndexEntries) {
        guard !pending.isEmpty else { return }
        for entry in pending.entries {
            tables[entry.table].index(entry.keys, value: entry.value, hash: entry.hash, property: entry.property)
        }
        pending.removeAll()
    }
}
