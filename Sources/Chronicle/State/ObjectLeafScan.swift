/// Walks a table's objects in key order a leaf of its objects trie at a
/// time, lending each object's record where it lies: how iterating every
/// object of a folded table makes a handle per object without gathering
/// keys and records into batches first.
///
/// The scan keeps the trie (`objects`), so the leaf whose records it lends
/// stays alive and unchanged while it walks it: a trie a state shares is
/// never written in place (a write copies the nodes it changes). A record
/// lent is valid until the scan's next step; a caller that keeps it copies
/// it (one retain), which is all an iteration's element costs in
/// reference counting (gathered into a batch, a record was retained and
/// released twice more).
///
/// - Complexity: O(1) a step, plus O(log₆₄ n) to find each leaf of 64 keys.
struct ObjectLeafScan {
    private let objects: PersistentIntMap<ObjectRecord>
    /// The leaf being walked: its key base, its keys not yet handed out,
    /// and its records from the next one on.
    private var base: Int64 = 0
    private var bits: UInt64 = 0
    private var records: UnsafePointer<ObjectRecord>?
    /// Where the next leaf is looked up from: past the last one taken.
    private var resume: Int64
    private var ended = false

    /// A scan of `objects` from key `start` on.
    init(_ objects: PersistentIntMap<ObjectRecord>, from start: Int64 = 0) {
        self.objects = objects
        resume = start
    }

    /// The next object's key and its record, lent until the next call;
    /// `nil` after the last.
    mutating func next() -> (key: ObjectKey, record: UnsafePointer<ObjectRecord>)? {
        while bits == 0 {
            guard !ended, loadLeaf() else {
                ended = true
                return nil
            }
        }
        let key = base | Int64(bits.trailingZeroBitCount)
        bits &= bits &- 1
        let record = records.unsafelyUnwrapped
        records = record + 1
        return (ObjectKey(key), record)
    }

    /// Takes the first leaf holding keys `>= resume`; `false` if there is
    /// none. A leaf may come with no key left (its keys below `resume`):
    /// the caller then asks for the one after it.
    private mutating func loadLeaf() -> Bool {
        var found = false
        var leaf: (base: Int64, bits: UInt64, records: UnsafePointer<ObjectRecord>?) = (0, 0, nil)
        objects.forEachLeaf(from: resume) { base, bits, records in
            leaf = (base, bits, records.baseAddress)
            found = true
            return false
        }
        guard found else { return false }
        (base, bits, records) = leaf
        // The next look-up starts past this leaf, whatever it held.
        resume = base + 64
        return true
    }
}
