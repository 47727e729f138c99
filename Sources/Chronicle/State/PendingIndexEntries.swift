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
    /// Where a run's keys go: a table's indexed property and a value.
    struct Entry {
        let table: Int
        let property: Int
        let value: PersistedValue
        /// `value.trieHash`, which the index's walk takes too.
        let hash: UInt64
        /// The entry's first and last key in ``keys`` (their chain runs
        /// through ``next``).
        var first: Int32
        var last: Int32
    }

    /// The entries, in the order their values first came.
    private(set) var entries: [Entry] = []
    /// Every entry's keys, in the order the objects were made, and for
    /// each the position of the same entry's next key (-1 after its last).
    /// One pair of arrays for all entries, kept from run to run with the
    /// rest: a fold's filing allocates nothing once they have grown (an
    /// array per value per run left freed buffers among the index's own).
    private var keys: [ObjectKey] = []
    private var next: [Int32] = []
    /// Open addressing over `entries` by hash: each slot an entry's
    /// position plus one, 0 when free. A power of two, at most half full.
    // Not a `Dictionary`: hashing a `PersistedValue` with `Hasher`
    // (normalising a string first) cost more than the walk saved.
    /// Empty until the first entry: a list that stays empty (a fold of
    /// commits without records) allocates nothing.
    private var slots: [Int32] = []
    /// The keys of one entry, gathered for filing.
    private var gathered = ContiguousArray<ObjectKey>()

    var isEmpty: Bool { entries.isEmpty }

    /// Notes that object `key` of `table` goes under `value` in the index
    /// of `property`. O(1) expected.
    mutating func add(_ key: ObjectKey, table: Int, property: Int, value: PersistedValue) {
        let hash = value.trieHash
        if slots.isEmpty { slots = [Int32](repeating: 0, count: 16) }
        let position = Int32(keys.count)
        keys.append(key)
        next.append(-1)
        // Probed through pointers: the arrays' subscripts copied each entry
        // they compared (retaining its value) and checked every index.
        let (found, free) = slots.withUnsafeBufferPointer { slots in
            entries.withUnsafeBufferPointer { entries -> (Int, Int) in
                let mask = slots.count - 1
                var slot = Self.start(hash, table, property) & mask
                while true {
                    let entry = Int(slots[slot]) - 1
                    if entry < 0 { return (-1, slot) }
                    let candidate = entries.baseAddress.unsafelyUnwrapped + entry
                    if candidate.pointee.hash == hash, candidate.pointee.property == property,
                       candidate.pointee.table == table, candidate.pointee.value == value {
                        return (entry, slot)
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
        if found >= 0 {
            next[Int(entries[found].last)] = position
            entries[found].last = position
            return
        }
        entries.append(Entry(table: table, property: property, value: value, hash: hash, first: position, last: position))
        slots[free] = Int32(entries.count)
        if entries.count * 2 > slots.count { rehash(capacity: slots.count * 2) }
    }

    private static func start(_ hash: UInt64, _ table: Int, _ property: Int) -> Int {
        Int(truncatingIfNeeded: hash ^ UInt64(truncatingIfNeeded: property &* 31 &+ table))
    }

    private mutating func rehash(capacity: Int) {
        slots = [Int32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for (position, entry) in entries.enumerated() {
            var slot = Self.start(entry.hash, entry.table, entry.property) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(position + 1)
        }
    }

    /// Calls `body` with each entry and its keys, in order, then empties
    /// the list, keeping its storage for the next run.
    mutating func drain(_ body: (Entry, ContiguousArray<ObjectKey>) -> Void) {
        guard !entries.isEmpty else { return }
        for entry in entries {
            gathered.removeAll(keepingCapacity: true)
            var position = Int(entry.first)
            while position >= 0 {
                gathered.append(keys[position])
                position = Int(next[position])
            }
            body(entry, gathered)
        }
        entries.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        next.removeAll(keepingCapacity: true)
        for index in slots.indices { slots[index] = 0 }
    }
}

extension StoreState {
    /// Files every entry of `pending` in its table's secondary index and
    /// empties it: one walk per indexed value, not per object.
    ///
    /// - Complexity: O(values × log n + keys × log chunk).
    mutating func fileIndexEntries(_ pending: inout PendingIndexEntries) {
        pending.drain { entry, keys in
            tables[entry.table].index(keys, value: entry.value, hash: entry.hash, property: entry.property)
        }
    }
}
