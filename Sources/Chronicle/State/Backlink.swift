/// One link into an object: the object holding the link and the property it
/// is in. An object listed twice in the same list has two equal backlinks.
public struct Backlink: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The table of the linking object.
    public var table: Int
    /// The linking object's key.
    public var key: ObjectKey
    /// The linking object's property that holds the link.
    public var property: Int

    /// A link from property `property` of object `key` in `table`.
    public init(table: Int, key: ObjectKey, property: Int) {
        self.table = table
        self.key = key
        self.property = property
    }

    /// Orders by table, key, then property.
    public static func < (lhs: Backlink, rhs: Backlink) -> Bool {
        (lhs.table, lhs.key.rawValue, lhs.property) < (rhs.table, rhs.key.rawValue, rhs.property)
    }

    /// `table:#key.property`, for logs.
    public var description: String { "\(table):\(key).\(property)" }
}
