/// Names one object in a ``StoreState``: its table and its key.
public struct TableKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The table: the index of the object's type in ``StoreState/schema``.
    public var table: Int
    /// The object's key within its table.
    public var key: ObjectKey

    /// The object `key` of table `table`.
    public init(table: Int, key: ObjectKey) {
        self.table = table
        self.key = key
    }

    /// Orders by table, then key.
    public static func < (lhs: TableKey, rhs: TableKey) -> Bool {
        (lhs.table, lhs.key.rawValue) < (rhs.table, rhs.key.rawValue)
    }

    /// `table:#key`, for logs.
    public var description: String { "\(table):\(key)" }
}
