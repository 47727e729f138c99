/// Primary-key value → object, for one table.
///
/// Non-negative integer keys — ids counted up from 0 or 1, the usual case —
/// live in an ordered int trie: no hashing, 8 bytes an entry, and the ids a
/// bulk insert adds land in the newest leaves, so the versions before it
/// (frozen objects, checkpoints) keep sharing the rest. In a hash trie each
/// new id lands in a random node, and every checkpoint of a bulk load held a
/// near-copy of the whole index. Every other key (strings, UUIDs, object
/// ids, negative integers) lives in a hash trie.
///
/// - Complexity: lookup, insertion and removal O(log₆₄ n) (expected, for
///   the hash trie); `count` O(1).
struct PrimaryKeyIndex: Sendable {
    /// The entries whose key is a non-negative `.int`.
    private(set) var integers = PersistentIntMap<ObjectKey>()
    /// Every other entry.
    private(set) var others = PersistentHashMap<PersistedValue, ObjectKey>()

    /// An empty index.
    init() {}

    /// The index of these entries: `integers` must hold only non-negative
    /// `.int` keys, and `others` none of them.
    init(integers: PersistentIntMap<ObjectKey>, others: PersistentHashMap<PersistedValue, ObjectKey>) {
        self.integers = integers
        self.others = others
    }

    /// The number of entries. O(1).
    var count: Int { integers.count + others.count }

    /// The object whose primary key is `value`; setting `nil` removes it.
    subscript(value: PersistedValue) -> ObjectKey? {
        get {
            if case .int(let integer) = value, integer >= 0 { return integers[integer] }
            return others[value]
        }
        set {
            if case .int(let integer) = value, integer >= 0 { integers[integer] = newValue } else { others[value] = newValue }
        }
    }

    /// The largest non-negative integer key, or −1 if there is none. O(1).
    var largestInteger: Int64 { integers.lastKey ?? -1 }

    /// Adds `count` non-negative integer keys — the `i`th `key(i)`, for
    /// object `object(i)` — ascending from above ``largestInteger`` (see
    /// ``PersistentIntMap/appendAscending(count:key:value:)``).
    @inline(__always)
    mutating func appendIntegers(count: Int, key: (Int) -> Int64, object: (Int) -> ObjectKey) {
        integers.appendAscending(count: count, key: key, value: object)
    }

    /// Traps if either trie breaks its invariants, or an integer key sits in the hash trie.
    func _checkInvariants() {
        integers._checkInvariants()
        others._checkInvariants()
        for (key, _) in others {
            if case .int(let integer) = key { precondition(integer < 0, "PrimaryKeyIndex: \(integer) in the hash trie") }
        }
    }
}
