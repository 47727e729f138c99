/// Accumulates a ``ChangeSet`` while events are folded, coalescing as it
/// goes (see ``ChangeSet`` for the rules).
///
/// Each recorded change costs O(1) expected (O(properties of the object)
/// when an object is deleted and re-created with the same key), and
/// ``build(version:)`` costs O(objects touched), so a change set costs
/// O(size of the change), never O(size of the store).
public struct ChangeSetBuilder: Sendable {
    private struct Entry: Sendable {
        /// Whether the object existed when the commit began.
        var existedBefore: Bool
        /// Whether it exists now.
        var exists: Bool
        /// For objects that existed before: changed properties, first old value, last new value.
        var deltas: [PropertyDelta] = []
        /// The record when it was last deleted.
        var lastRecord: ObjectRecord?
    }

    /// Every object touched, in the order first touched; `fresh` marks an
    /// object whose key was new when it was created (see ``created(_:record:fresh:)``),
    /// and consecutive fresh creations of one table with consecutive keys
    /// share one element (a run): a bulk insert's order is one element,
    /// not one an object that a large write grew by doubling.
    private var order: [Touched] = []
    /// The entries of the objects touched, except fresh creations that
    /// nothing touched since.
    private var entries = Entries()
    /// Per table index, the smallest key created fresh (`Int64.max`: none).
    /// No key at or above it existed when the builder began.
    private var freshFloor: [Int64] = []
    /// How many fresh creations were deleted, and so have an entry.
    private var freshTouched = 0
    /// Whether a type was defined or a property added.
    public internal(set) var schemaChanged = false

    /// Whether changes are recorded; a fold nobody observes skips the bookkeeping.
    private let recording: Bool
    /// The coarse summary of what was recorded, without the schema flag.
    private var recordedFootprint = ChangeFootprint()

    /// What was recorded, coarsely: see ``ChangeFootprint``. O(1).
    var footprint: ChangeFootprint {
        var footprint = recordedFootprint
        if schemaChanged { footprint.isStructural = true }
        return footprint
    }

    /// An empty builder.
    public init() { recording = true }

    /// An empty builder that records nothing when `recording` is `false`.
    init(recording: Bool) { self.recording = recording }

    /// Whether nothing has been recorded. O(1).
    public var isEmpty: Bool { order.isEmpty && !schemaChanged }

    /// Entries by object: the first object's held inline, the others in a
    /// dictionary made only when a second object is touched. Most commits
    /// touch one object (a property set, an object added), and the
    /// dictionary's storage, growth and hashing cost such a commit more than
    /// the rest of its bookkeeping, in every process that folds it.
    private struct Entries: Sendable {
        private var firstObject: TableKey?
        private var first = Entry(existedBefore: false, exists: false)
        private var others: [TableKey: Entry] = [:]

        /// The entry of `object`, if it has one. O(1) expected.
        subscript(object: TableKey) -> Entry? {
            if firstObject == object { return first }
            return others.isEmpty ? nil : others[object]
        }

        /// Sets the entry of `object`. O(1) expected.
        mutating func set(_ entry: Entry, for object: TableKey) {
            if firstObject == nil || firstObject == object {
                firstObject = object
                first = entry
            } else {
                others[object] = entry
            }
        }
    }

    private struct Touched: Sendable {
        /// The object, or a run's first.
        var object: TableKey
        var fresh: Bool
        /// The objects of a run of fresh creations: keys `object.key` up,
        /// consecutive; 1 for any other.
        var count: UInt32 = 1

        /// The objects, in order.
        var objects: some Collection<TableKey> {
            let table = object.table, first = object.key.rawValue
            return (0..<Int64(count)).lazy.map { TableKey(table: table, key: ObjectKey(first + $0)) }
        }
    }

    /// The entry of an object that exists now (it is being modified or
    /// deleted); `fresh` tells whether it is a fresh creation without an
    /// entry so far.
    private mutating func touchExisting(_ object: TableKey, fresh: inout Bool) -> Entry {
        if let entry = entries[object] { return entry }
        if object.table < freshFloor.count, object.key.rawValue >= freshFloor[object.table] {
            // Its key did not exist when the builder began, and it has no
            // entry: a fresh creation, already in `order`.
            fresh = true
            return Entry(existedBefore: false, exists: true)
        }
        order.append(Touched(object: object, fresh: false))
        return Entry(existedBefore: true, exists: true)
    }

    /// Records that `object` was created with `record`.
    ///
    /// `fresh` says that the object's key was at or above its table's next
    /// key (``StoreState/nextKey(table:)``), so never used: the object did
    /// not exist before and nothing in this builder touched it. Such an
    /// insertion is only appended to the order, with no hashing: O(1).
    mutating func created(_ object: TableKey, record: ObjectRecord, fresh: Bool) {
        guard recording else { return }
        recordedFootprint.isStructural = true
        if fresh {
            if freshFloor.count <= object.table {
                freshFloor.append(contentsOf: repeatElement(.max, count: object.table + 1 - freshFloor.count))
            }
            freshFloor[object.table] = min(freshFloor[object.table], object.key.rawValue)
            if let last = order.last, last.fresh, last.object.table == object.table, last.count < .max,
               last.object.key.rawValue &+ Int64(last.count) == object.key.rawValue {
                order[order.count - 1].count += 1
            } else {
                order.append(Touched(object: object, fresh: true))
            }
            return
        }
        var entry: Entry
        if let existing = entries[object] { entry = existing } else {
            order.append(Touched(object: object, fresh: false))
            entry = Entry(existedBefore: false, exists: false)
        }
        if entry.existedBefore, let last = entry.lastRecord {
            // Deleted and re-created with the same key: a modification
            // from the record the commit began with.
            var original = last
            for delta in entry.deltas { original[delta.property] = delta.oldValue }
            entry.deltas = zip(original.values, record.values).enumerated().compactMap { property, pair in
                pair.0 == pair.1 ? nil : PropertyDelta(property: property, oldValue: pair.0, newValue: pair.1)
            }
            entry.lastRecord = nil
        }
        entry.exists = true
        entries.set(entry, for: object)
    }

    mutating func modified(_ object: TableKey, property: Int, old: PersistedValue, new: PersistedValue) {
        guard recording else { return }
        var fresh = false
        var entry = touchExisting(object, fresh: &fresh)
        guard entry.existedBefore else { return }  // an insertion carries its final record
        recordedFootprint.modified(table: object.table, property: property)
        if let index = entry.deltas.firstIndex(where: { $0.property == property }) {
            if entry.deltas[index].oldValue == new {
                entry.deltas.remove(at: index)
            } else {
                entry.deltas[index].newValue = new
            }
        } else {
            entry.deltas.append(PropertyDelta(property: property, oldValue: old, newValue: new))
        }
        entries.set(entry, for: object)
    }

    mutating func deleted(_ object: TableKey, record: ObjectRecord) {
        guard recording else { return }
        recordedFootprint.isStructural = true
        var fresh = false
        var entry = touchExisting(object, fresh: &fresh)
        if fresh { freshTouched += 1 }
        entry.exists = false
        entry.lastRecord = record
        entries.set(entry, for: object)
    }

    /// The coalesced change set, stamped with `version`. O(objects touched).
    public func build(version: UInt64) -> ChangeSet {
        var insertions: [TableKey] = []
        var deletions: [TableKey] = []
        var deletedRecords: [TableKey: ObjectRecord] = [:]
        var modifications: [ObjectModification] = []
        for touched in order {
            if touched.fresh, freshTouched == 0 {
                insertions.append(contentsOf: touched.objects)
                continue
            }
            for object in touched.objects {
                let entry = entries[object] ?? Entry(existedBefore: false, exists: true)
                switch (entry.existedBefore, entry.exists) {
                case (false, true):
                    insertions.append(object)
                case (true, false):
                    deletions.append(object)
                    deletedRecords[object] = entry.lastRecord
                case (true, true) where !entry.deltas.isEmpty:
                    // One changed property (the common case) is sorted already: no copy.
                    let deltas = entry.deltas.count == 1 ? entry.deltas : entry.deltas.sorted { $0.property < $1.property }
                    modifications.append(ObjectModification(table: object.table, key: object.key, properties: deltas))
                default:
                    break
                }
            }
        }
        return ChangeSet(version: version, insertions: insertions, deletions: deletions, deletedRecords: deletedRecords,
                         modifications: modifications, schemaChanged: schemaChanged)
    }
}
