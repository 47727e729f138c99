/// Primary-key value → object, for one table.
///
/// Non-negative integer keys — ids counted up from 0 or 1, the usual case —
/// are kept as a *run* while they follow the objects' keys: while every id
/// from ``run``'s start up to its end belongs to the object whose key is
/// that id plus one fixed offset, the run's three numbers are the whole
/// index (SQLite's `INTEGER PRIMARY KEY`, an alias of the row id, keeps no
/// index either). A bulk load of ids counted up with the objects costs
/// nothing to index and nothing to keep, where an entry cost 8 bytes and
/// the share of a trie node.
///
/// What the run cannot say lives beside it: an id removed from inside the
/// run (an object deleted, or its id changed), or skipped by an id that
/// follows it a little further on (at most ``maximumGap``; a checkpoint's
/// restore sees a deleted object's id so), in ``holes``, and any other
/// non-negative id in an ordered int trie (``integers``: no hashing, 8
/// bytes an entry, and the ids a bulk insert adds land in the newest
/// leaves, so the versions before it keep sharing the rest; in a hash trie
/// each new id lands in a random node, and every checkpoint of a bulk load
/// held a near-copy of the whole index). Every other key (strings, UUIDs,
/// object ids, negative integers) lives in a hash trie. A run is started
/// only by an index without integer entries, and grows only at its end;
/// once an id arrives that does not follow it, ids go to the trie (the run
/// stays, for the ids it holds). No edit ever moves the run's ids into the
/// trie, so none costs more than O(log n).
///
/// - Complexity: lookup, insertion and removal O(log₆₄ n) (expected, for
///   the hash trie); O(1) for an id the run holds, and for appending to
///   the run; `count` O(1).
struct PrimaryKeyIndex: Sendable {
    /// Ids that followed the objects' keys: `id` in `range` (unless in
    /// ``holes``) is the object whose key is `id + offset`.
    struct Run: Equatable, Sendable {
        /// The ids the run covers (holes included).
        var range: Range<Int64>
        /// Object key − id, for every id the run holds.
        var offset: Int64

        /// The object key the run gives `id`, if it covers it.
        @inline(__always)
        func key(for id: Int64) -> ObjectKey? {
            range.contains(id) ? ObjectKey(id &+ offset) : nil
        }
    }

    /// The non-negative integer ids that follow the objects' keys.
    private(set) var run = Run(range: 0..<0, offset: 0)
    /// Ids in ``run``'s range that it no longer holds (their object gone,
    /// or given another id). A set: the key the run would give is the
    /// run's to say.
    private(set) var holes = PersistentIntMap<Void>()
    /// The other non-negative `.int` entries.
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
    var count: Int { integerCount + others.count }

    /// The number of non-negative integer entries. O(1).
    var integerCount: Int { run.range.count - holes.count + integers.count }

    /// The number of entries in the hash trie: every key but a non-negative
    /// integer. O(1).
    var otherCount: Int { others.count }

    /// This index without its hash-trie entries (keys other than
    /// non-negative integers), for an in-memory checkpoint that leaves them
    /// out (``UnindexedTable``). O(1).
    var withoutOthers: PrimaryKeyIndex {
        var index = self
        index.others = PersistentHashMap()
        return index
    }

    /// This index with `others`, built from the objects, as its hash-trie
    /// entries, which it has none of (``withoutOthers``): what
    /// ``UnindexedTable`` builds again. Every key must be one the hash trie
    /// takes. O(n log n) in the entries given.
    func with(others entries: ContiguousArray<(key: PersistedValue, value: ObjectKey)>) -> PrimaryKeyIndex {
        precondition(others.isEmpty, "PrimaryKeyIndex: the hash trie is not empty")
        var index = self
        switch PersistentHashMap<PersistedValue, ObjectKey>.building(from: entries) {
        case .success(let others):
            index.others = others
        case .failure:
            // Equal keys: one entry each, the later one winning, as the
            // inserts that made the index would have it.
            for (key, value) in entries { index.others[key] = value }
        }
        return index
    }

    /// Whether the hash trie, not the integer ids, holds `value`.
    static func isOther(_ value: PersistedValue) -> Bool {
        if case .int(let integer) = value, integer >= 0 { return false }
        return true
    }

    /// Whether no integer id has been indexed, so that one may start a run.
    private var hasNoIntegers: Bool { run.range.isEmpty && holes.isEmpty && integers.isEmpty }

    /// The object whose primary key is `value` in the index at `index`.
    /// O(1) for an id the run holds, else O(log n).
    ///
    /// Through a pointer, each trie read where it lies: a method of an
    /// index stored in a table in an array copied the whole index first.
    @inline(__always)
    static func object(forPrimaryKey value: PersistedValue, in index: UnsafePointer<PrimaryKeyIndex>) -> ObjectKey? {
        guard case .int(let id) = value, id >= 0 else { return index.pointee.others[value] }
        if let key = index.pointee.run.key(for: id), index.pointee.holes.isEmpty || index.pointee.holes[id] == nil { return key }
        return index.pointee.integers[id]
    }

    /// The object whose primary key is `value`; setting `nil` removes it.
    subscript(value: PersistedValue) -> ObjectKey? {
        get { withUnsafePointer(to: self) { Self.object(forPrimaryKey: value, in: $0) } }
        set {
            if case .int(let integer) = value, integer >= 0 { setInteger(integer, to: newValue) } else { others[value] = newValue }
        }
    }

    /// Points `id` at `object`, or removes it.
    private mutating func setInteger(_ id: Int64, to object: ObjectKey?) {
        guard let object else {
            guard run.range.contains(id), holes[id] == nil else {
                integers[id] = nil
                return
            }
            guard id == run.range.upperBound - 1 else {
                holes[id] = ()
                return
            }
            // The run's last id is given back by shortening it (and the
            // holes that end it then, with it).
            var end = id
            while end > run.range.lowerBound, holes[end - 1] != nil {
                end -= 1
                holes[end] = nil
            }
            run.range = run.range.lowerBound..<end
            return
        }
        if hasNoIntegers { run = Run(range: id..<id, offset: object.rawValue &- id) }
        if let key = run.key(for: id) {
            if key == object {
                if !holes.isEmpty { holes[id] = nil }
                if !integers.isEmpty { integers[id] = nil }
                return
            }
            // Another object for an id in the run: the run no longer holds it.
            if holes[id] == nil { holes[id] = () }
        } else if !run.range.isEmpty || hasNoIntegers, integers.isEmpty || integers[id] == nil,
                  extendRun(to: id, for: object) {
            return
        }
        integers[id] = object
    }

    /// The most ids between the run's end and an id that follows it
    /// (the key the run would give it) that may become holes so that the
    /// run holds it: one trie leaf's worth. (The objects between were
    /// deleted, or hold other ids; a longer gap starts the trie.)
    static var maximumGap: Int64 { 64 }

    /// Extends the run to hold `id` for `object` if it follows it; the
    /// ids between become holes. Returns whether it did.
    private mutating func extendRun(to id: Int64, for object: ObjectKey) -> Bool {
        let end = run.range.upperBound
        // (`Int64.max` cannot end a range: the trie holds it.)
        guard id >= end, id < .max, id - end <= Self.maximumGap, object.rawValue == id &+ run.offset else { return false }
        for gap in end..<id { holes[gap] = () }
        run.range = run.range.lowerBound..<(id + 1)
        return true
    }

    /// The largest non-negative integer id held, or −1 if there is none.
    /// O(1) (an id removed from inside the run may still count, so that
    /// this is an upper bound).
    var largestInteger: Int64 {
        Swift.max(run.range.isEmpty ? -1 : run.range.upperBound - 1, integers.lastKey ?? -1)
    }

    /// Adds `count` non-negative integer keys — the `i`th `key(i)`, for
    /// object `object(i)` — ascending from above ``largestInteger``: to the
    /// run while they follow it, then to the trie (see
    /// ``PersistentIntMap/appendAscending(count:key:value:)``).
    @inline(__always)
    mutating func appendIntegers(count: Int, key: (Int) -> Int64, object: (Int) -> ObjectKey) {
        var index = 0
        if count > 0, hasNoIntegers { run = Run(range: key(0)..<key(0), offset: object(0).rawValue &- key(0)) }
        if !run.range.isEmpty || integers.isEmpty {
            // The usual id: the run's next, with no gap to fill.
            var end = run.range.upperBound
            while index < count {
                let id = key(index)
                if id == end, id < .max, object(index).rawValue == end &+ run.offset {
                    end += 1
                } else {
                    run.range = run.range.lowerBound..<end
                    guard extendRun(to: id, for: object(index)) else { break }
                    end = run.range.upperBound
                }
                index += 1
            }
            run.range = run.range.lowerBound..<end
        }
        guard index < count else { return }
        let first = index
        integers.appendAscending(count: count - first, key: { key(first + $0) }, value: { object(first + $0) })
    }

    /// Traps if either trie breaks its invariants, an integer key sits in
    /// the hash trie, a hole lies outside the run, or an id is held both by
    /// the run and the int trie.
    func _checkInvariants() {
        integers._checkInvariants()
        holes._checkInvariants()
        others._checkInvariants()
        precondition(run.range.lowerBound >= 0, "PrimaryKeyIndex: a run from \(run.range.lowerBound)")
        for (key, _) in others {
            if case .int(let integer) = key { precondition(integer < 0, "PrimaryKeyIndex: \(integer) in the hash trie") }
        }
        for (id, _) in holes {
            precondition(run.range.contains(id), "PrimaryKeyIndex: hole \(id) outside the run")
        }
        for (id, _) in integers where run.range.contains(id) {
            precondition(holes[id] != nil, "PrimaryKeyIndex: \(id) in the run and in the int trie")
        }
    }
}
