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

    private var order: [TableKey] = []
    private var entries: [TableKey: Entry] = [:]
    /// Whether a type was defined or a property added.
    public internal(set) var schemaChanged = false

    /// Whether changes are recorded; a fold nobody observes skips the bookkeeping.
    private let recording: Bool

    /// An empty builder.
    public init() { recording = true }

    /// An empty builder that records nothing when `recording` is `false`.
    init(recording: Bool) { self.recording = recording }

    /// Whether nothing has been recorded. O(1).
    public var isEmpty: Bool { entries.isEmpty && !schemaChanged }

    private mutating func touch(_ object: TableKey, existedBefore: Bool) -> Entry {
        if let entry = entries[object] { return entry }
        order.append(object)
        return Entry(existedBefore: existedBefore, exists: existedBefore)
    }

    mutating func created(_ object: TableKey, record: ObjectRecord) {
        guard recording else { return }
        var entry = touch(object, existedBefore: false)
        if entry.existedBefore, let last = entry.lastRecord {
            // Deleted and re-created with the same key: a modification
            // from the record the commit began with.
            var original = last
            for delta in entry.deltas { original.values[delta.property] = delta.oldValue }
            entry.deltas = zip(original.values, record.values).enumerated().compactMap { property, pair in
                pair.0 == pair.1 ? nil : PropertyDelta(property: property, oldValue: pair.0, newValue: pair.1)
            }
            entry.lastRecord = nil
        }
        entry.exists = true
        entries[object] = entry
    }

    mutating func modified(_ object: TableKey, property: Int, old: PersistedValue, new: PersistedValue) {
        guard recording else { return }
        var entry = touch(object, existedBefore: true)
        guard entry.existedBefore else { return }  // an insertion carries its final record
        if let index = entry.deltas.firstIndex(where: { $0.property == property }) {
            if entry.deltas[index].oldValue == new {
                entry.deltas.remove(at: index)
            } else {
                entry.deltas[index].newValue = new
            }
        } else {
            entry.deltas.append(PropertyDelta(property: property, oldValue: old, newValue: new))
        }
        entries[object] = entry
    }

    mutating func deleted(_ object: TableKey, record: ObjectRecord) {
        guard recording else { return }
        var entry = touch(object, existedBefore: true)
        entry.exists = false
        entry.lastRecord = record
        entries[object] = entry
    }

    /// The coalesced change set, stamped with `version`. O(objects touched).
    public func build(version: UInt64) -> ChangeSet {
        var insertions: [TableKey] = []
        var deletions: [TableKey] = []
        var deletedRecords: [TableKey: ObjectRecord] = [:]
        var modifications: [ObjectModification] = []
        for object in order {
            let entry = entries[object]!
            switch (entry.existedBefore, entry.exists) {
            case (false, true):
                insertions.append(object)
            case (true, false):
                deletions.append(object)
                deletedRecords[object] = entry.lastRecord
            case (true, true) where !entry.deltas.isEmpty:
                modifications.append(ObjectModification(table: object.table, key: object.key,
                                                        properties: entry.deltas.sorted { $0.property < $1.property }))
            default:
                break
            }
        }
        return ChangeSet(version: version, insertions: insertions, deletions: deletions, deletedRecords: deletedRecords,
                         modifications: modifications, schemaChanged: schemaChanged)
    }
}
