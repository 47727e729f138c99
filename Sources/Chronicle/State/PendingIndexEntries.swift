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
///
/// A write's ``Transaction`` gathers the entries of the objects `add`
/// creates the same way, and files them before any other event applies and
/// before anything reads its state (a query inside the write, the commit).
struct PendingIndexEntries {
    /// Where a run's keys go: a table's indexed property and a value.
    struct Entry {
        let table: Int
        let property: Int
        let value: PersistedValue
        /// `value.trieHash`, which the index's walk takes too.
        let hash: UInt64
        /// The value as two words that equal another's only if the values
        /// are equal (``FastKey``), or `nil`: compared instead of `value`.
        let fast: FastKey?
        /// How many keys it has.
        var count: Int32 = 1
    }

    /// The entries, in the order their values first came.
    private(set) var entries: [Entry] = []
    /// Every entry's keys, in the order the objects were made, each with
    /// the position of its entry in ``entries``. One array for all
    /// entries, kept from run to run with the rest: a fold's filing
    /// allocates nothing once it has grown (an array per value per run left
    /// freed buffers among the index's own).
    private var keys: [Link] = []

    /// A key and its entry.
    private struct Link {
        let key: ObjectKey
        let entry: Int32
    }

    /// Open addressing over `entries` by hash: each slot an entry's
    /// position plus one, 0 when free. A power of two, at most half full.
    // Not a `Dictionary`: hashing a `PersistedValue` with `Hasher`
    // (normalising a string first) cost more than the walk saved.
    /// Empty until the first entry: a list that stays empty (a fold of
    /// commits without records) allocates nothing.
    private var slots: [Int32] = []
    /// ``SmallASCIIString/isAvailable``, looked up once: whether a short
    /// ASCII string's words can stand for it (``FastKey``).
    private let smallASCII = SmallASCIIString.isAvailable

    var isEmpty: Bool { entries.isEmpty }

    /// Notes that object `key` of `table` goes under `value` in the index
    /// of `property`. O(1) expected.
    mutating func add(_ key: ObjectKey, table: Int, property: Int, value: PersistedValue) {
        let fast = FastKey(value, smallASCII: smallASCII)
        add(key, table: table, property: property, hash: fast?.hash ?? value.trieHash, fast: fast) { value }
    }

    /// ``add(_:table:property:value:)`` of the value `record` holds at
    /// `property`, read where it lies: an integer or a short ASCII string
    /// (the usual indexed values) is hashed and compared as its slot's
    /// words, with no ``PersistedValue`` made unless its entry is new.
    /// O(1) expected.
    mutating func add(_ key: ObjectKey, table: Int, property: Int, from record: ObjectRecord) {
        // The slot's kind and words read out first, the key made after: made
        // inside the closure, it kept the closure from being inlined.
        // The second word only of a 16-byte slot: an 8-byte one may end the record.
        let (tag, words) = record.storage.slot(of: property) { slot, tag in
            (tag, (slot.load(as: UInt64.self), RecordStorage.Tag.isWide(tag) ? slot.load(fromByteOffset: 8, as: UInt64.self) : 0))
        }
        guard let fast = FastKey(tag: tag, words: words, smallASCII: smallASCII) else {
            add(key, table: table, property: property, value: record[property])
            return
        }
        add(key, table: table, property: property, hash: fast.hash, fast: fast) { record[property] }
    }

    @inline(__always)
    private mutating func add(_ key: ObjectKey, table: Int, property: Int, hash: UInt64, fast: FastKey?,
                              value: () -> PersistedValue) {
        if slots.isEmpty { slots = [Int32](repeating: 0, count: 16) }
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
                       candidate.pointee.table == table,
                       fast != nil || candidate.pointee.fast != nil
                           ? candidate.pointee.fast == fast : candidate.pointee.value == value() {
                        return (entry, slot)
                    }
                    slot = (slot + 1) & mask
                }
            }
        }
        if found >= 0 {
            // Through a pointer: the subscript checked its index and the
            // array's uniqueness once more.
            entries.withUnsafeMutableBufferPointer { $0.baseAddress.unsafelyUnwrapped[found].count &+= 1 }
            keys.append(Link(key: key, entry: Int32(truncatingIfNeeded: found)))
            return
        }
        keys.append(Link(key: key, entry: Int32(entries.count)))
        entries.append(Entry(table: table, property: property, value: value(), hash: hash, fast: fast))
        slots[free] = Int32(entries.count)
        if entries.count * 2 > slots.count { rehash(capacity: slots.count * 2) }
    }

    /// An integer or a string of at most 15 ASCII bytes as two words (the
    /// integer's bits; the small string's own two words, see
    /// ``SmallASCIIString``), and its `trieHash`.
    ///
    /// Equal words mean equal values: a small string's words are its
    /// bytes, zeros after them and its count. (Were two equal strings ever
    /// laid out apart, their values would get two entries, each filed with
    /// a walk of its own: the same index, one walk more.)
    struct FastKey: Equatable {
        let kind: UInt8
        let words: (UInt64, UInt64)
        let hash: UInt64

        static func == (a: FastKey, b: FastKey) -> Bool {
            a.kind == b.kind && a.words.0 == b.words.0 && a.words.1 == b.words.1
        }

        private static let int: UInt8 = 1, smallASCII: UInt8 = 2

        /// `value`'s key, `nil` for any other kind of value. `smallASCII`:
        /// ``SmallASCIIString/isAvailable`` (looked up once by the caller).
        init?(_ value: PersistedValue, smallASCII: Bool) {
            switch value {
            case .int(let integer):
                self.init(integer: integer)
            case .string(let string):
                #if _pointerBitWidth(_64)
                let words = unsafeBitCast(string, to: (UInt64, UInt64).self)
                guard smallASCII, let count = SmallASCIIString.count(ofWords: words) else { return nil }
                self.init(smallASCII: words, count: count)
                #else
                return nil
                #endif
            default:
                return nil
            }
        }

        /// The key of the value in a record's slot of kind `tag` holding
        /// `words` (see ``RecordStorage``), `nil` for any other kind.
        @inline(__always)
        init?(tag: UInt64, words: (UInt64, UInt64), smallASCII: Bool) {
            if tag == RecordStorage.Tag.int {
                self.init(integer: Int64(bitPattern: words.0))
            } else if tag == RecordStorage.Tag.string, smallASCII, let count = SmallASCIIString.count(ofWords: words) {
                self.init(smallASCII: words, count: count)
            } else {
                return nil
            }
        }

        @inline(__always)
        private init(integer: Int64) {
            kind = Self.int
            words = (UInt64(bitPattern: integer), 0)
            hash = SeededHash.integer(UInt64(bitPattern: integer))
        }

        /// The hash of the string's bytes, which ``SeededHash/string(_:seed:)``
        /// gives an ASCII string.
        @inline(__always)
        private init(smallASCII words: (UInt64, UInt64), count: Int) {
            kind = Self.smallASCII
            self.words = words
            // The bytes alone: the flags byte is not the string's.
            hash = SeededHash.short((words.0, words.1 & 0x00FF_FFFF_FFFF_FFFF), count: count)
        }
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
    ///
    /// The keys are sorted by entry in one pass (a counting sort: each
    /// entry's place follows from the counts before it), reading ``keys``
    /// in order. Following a chain per entry through ``keys`` instead read
    /// one link per cache line once the entries interleave (a commit of
    /// players of a hundred teams), a miss for nearly every key.
    ///
    /// - Complexity: O(entries + keys).
    mutating func drain(_ body: (Entry, UnsafeBufferPointer<ObjectKey>) -> Void) {
        guard !entries.isEmpty else { return }
        let sorted = [ObjectKey](unsafeUninitializedCapacity: keys.count) { sorted, initialized in
            // Each entry's next place in `sorted`: its start, then one on
            // for each of its keys copied.
            var next = [Int](unsafeUninitializedCapacity: entries.count) { next, filled in
                var start = 0
                for (position, entry) in entries.enumerated() {
                    next.initializeElement(at: position, to: start)
                    start &+= Int(entry.count)
                }
                filled = entries.count
            }
            keys.withUnsafeBufferPointer { keys in
                next.withUnsafeMutableBufferPointer { next in
                    let base = sorted.baseAddress.unsafelyUnwrapped, cursors = next.baseAddress.unsafelyUnwrapped
                    for link in keys {
                        let cursor = cursors + Int(link.entry)
                        (base + cursor.pointee).initialize(to: link.key)
                        cursor.pointee &+= 1
                    }
                }
            }
            initialized = keys.count
        }
        sorted.withUnsafeBufferPointer { sorted in
            var start = 0
            for entry in entries {
                let count = Int(entry.count)
                body(entry, UnsafeBufferPointer(rebasing: sorted[start ..< start &+ count]))
                start &+= count
            }
        }
        entries.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
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
