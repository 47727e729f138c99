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

    // Look-ups by object, made only for commits that touch more objects
    // than a scan of the lists costs: most commits change one or a few
    // objects, and a set and a dictionary made for each (their storage,
    // hashing every key, and the generic `reserveCapacity`, which looks up
    // its storage type's metadata at run time) cost more than the commit's
    // own fold.
    /// ``insertions`` as a set; `nil` for at most ``indexedAbove`` of them.
    private let insertedSet: Set<TableKey>?
    /// Object → its position in ``modifications``; `nil` for at most
    /// ``indexedAbove`` of them.
    private let modificationIndex: [TableKey: Int]?
    /// The most objects a list holds that look-ups scan instead of hashing.
    static let indexedAbove = 16

    init(version: UInt64, insertions: [TableKey], deletions: [TableKey], deletedRecords: [TableKey: ObjectRecord],
         modifications: [ObjectModification], schemaChanged: Bool) {
        self.version = version
        self.insertions = insertions
        self.deletions = deletions
        self.deletedRecords = deletedRecords
        self.modifications = modifications
        self.schemaChanged = schemaChanged
        insertedSet = insertions.count > Self.indexedAbove ? Set(insertions) : nil
        if modifications.count > Self.indexedAbove {
            var index: [TableKey: Int] = [:]
            index.reserveCapacity(modifications.count)
            for (position, modification) in modifications.enumerated() {
                index[TableKey(table: modification.table, key: modification.key)] = position
            }
            modificationIndex = index
        } else {
            modificationIndex = nil
        }
    }

    /// An empty change set for `version`.
    public static func empty(version: UInt64) -> ChangeSet {
        ChangeSet(version: version, insertions: [], deletions: [], deletedRecords: [:], modifications: [],
                  schemaChanged: false)
    }

    /// Whether the commit changed nothing. O(1).
    public var isEmpty: Bool { insertions.isEmpty && deletions.isEmpty && modifications.isEmpty && !schemaChanged }

    /// The modification of object `key` in `table`, if it was modified.
    /// O(1) (a scan of at most 16 modifications).
    public func modification(table: Int, key: ObjectKey) -> ObjectModification? {
        guard let modificationIndex else {
            return modifications.first { $0.key == key && $0.table == table }
        }
        return modificationIndex[TableKey(table: table, key: key)].map { modifications[$0] }
    }

    /// Whether the commit inserted object `key` in `table`. O(1) (a scan of
    /// at most 16 insertions).
    public func isInserted(table: Int, key: ObjectKey) -> Bool {
        let object = TableKey(table: table, key: key)
        guard let insertedSet else { return insertions.contains(object) }
        return insertedSet.contains(object)
    }

    /// Whether the commit deleted object `key` in `table`. O(1).
    public func isDeleted(table: Int, key: ObjectKey) -> Bool { deletedRecords[TableKey(table: table, key: key)] != nil }
}
