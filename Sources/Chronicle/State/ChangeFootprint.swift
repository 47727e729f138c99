/// A coarse summary of what a write changed, kept by ``ChangeSetBuilder``
/// as it records: whether an object was created or deleted or the schema
/// changed, and per table which properties of existing objects were set.
///
/// The observer registry compares it with what its observers watch
/// (``InterestSummary``) to learn, without building the change set, that
/// no observer can care about a commit: an update of a property nobody
/// observes then costs no more than with no observers at all.
///
/// It over-approximates, never under: a property set and set back still
/// counts, and properties at index 63 and above share one bit.
struct ChangeFootprint: Sendable, Equatable {
    /// Whether an object was created or deleted, or the schema changed.
    var isStructural = false
    /// The first table a property was set in (-1: none yet) and the
    /// ``bit(_:)`` of every property set there. Most writes touch one
    /// table: they allocate nothing (an array per write was an allocation
    /// and a free on every commit).
    private var firstTable = -1
    private var firstBits: UInt64 = 0
    /// The bits of the other tables, by table index.
    private var otherTables: [UInt64] = []

    /// The bit standing for `property` in a property mask.
    static func bit(_ property: Int) -> UInt64 { 1 << UInt64(min(property, 63)) }

    /// Records that `property` of an object of `table` that existed before
    /// the write was set. O(1) amortised.
    mutating func modified(table: Int, property: Int) {
        if table == firstTable || firstTable < 0 {
            firstTable = table
            firstBits |= Self.bit(property)
            return
        }
        if otherTables.count <= table {
            otherTables.append(contentsOf: repeatElement(0, count: table + 1 - otherTables.count))
        }
        otherTables[table] |= Self.bit(property)
    }

    /// Whether `predicate` holds for some table where properties were set,
    /// given the table's index and its property bits. O(tables).
    func containsModifiedTable(where predicate: (_ table: Int, _ bits: UInt64) -> Bool) -> Bool {
        if firstTable >= 0, predicate(firstTable, firstBits) { return true }
        for (table, bits) in otherTables.enumerated() where bits != 0 && predicate(table, bits) { return true }
        return false
    }
}
