/// What one commit changed: the objects it inserted and deleted, and the
/// properties it changed on the others, with old and new values.
///
/// Changes within the commit are coalesced: an object created and then
/// modified is only an insertion; created and then deleted appears nowhere;
/// a property set twice keeps its first old and its last new value, and one
/// set back to its old value is not reported. Adding a property to a type
/// sets ``schemaChanged`` and reports no per-object change.
///
/// Lists are in deterministic order: the order in which the commit's events
/// first touched each object.
public struct ChangeSet: Sendable, Hashable {
    /// The version of the state the commit produced.
    public let version: UInt64
    /// Objects created by the commit and alive at its end.
    public let insertions: [TableKey]
    /// Objects alive before the commit and not after.
    public let deletions: [TableKey]
    /// The last record of each deleted object, as it was when deleted.
    public let deletedRecords: [TableKey: ObjectRecord]
    /// Objects alive before and after whose properties changed.
    public let modifications: [ObjectModification]
    /// Whether the commit defined a type or added a property.
    public let schemaChanged: Bool

    private let insertedSet: Set<TableKey>
    private let modificationIndex: [TableKey: Int]

    init(version: UInt64, insertions: [TableKey], deletions: [TableKey], deletedRecords: [TableKey: ObjectRecord],
         modifications: [ObjectModification], schemaChanged: Bool) {
        self.version = version
        self.insertions = insertions
        self.deletions = deletions
        self.deletedRecords = deletedRecords
        self.modifications = modifications
        self.schemaChanged = schemaChanged
        insertedSet = Set(insertions)
        var index: [TableKey: Int] = [:]
        index.reserveCapacity(modifications.count)
        for (position, modification) in modifications.enumerated() {
            index[TableKey(table: modification.table, key: modification.key)] = position
        }
        modificationIndex = index
    }

    /// An empty change set for `version`.
    public static func empty(version: UInt64) -> ChangeSet {
        ChangeSet(version: version, insertions: [], deletions: [], deletedRecords: [:], modifications: [],
                  schemaChanged: false)
    }

    /// Whether the commit changed nothing. O(1).
    public var isEmpty: Bool { insertions.isEmpty && deletions.isEmpty && modifications.isEmpty && !schemaChanged }

    /// The modification of object `key` in `table`, if it was modified. O(1).
    public func modification(table: Int, key: ObjectKey) -> ObjectModification? {
        modificationIndex[TableKey(table: table, key: key)].map { modifications[$0] }
    }

    /// Whether the commit inserted object `key` in `table`. O(1).
    public func isInserted(table: Int, key: ObjectKey) -> Bool { insertedSet.contains(TableKey(table: table, key: key)) }

    /// Whether the commit deleted object `key` in `table`. O(1).
    public func isDeleted(table: Int, key: ObjectKey) -> Bool { deletedRecords[TableKey(table: table, key: key)] != nil }
}
