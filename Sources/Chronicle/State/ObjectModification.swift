/// The changed properties of one object that existed before and after a
/// commit.
public struct ObjectModification: Hashable, Sendable {
    /// The object's table.
    public var table: Int
    /// The object's key.
    public var key: ObjectKey
    /// The properties that changed, in ascending property order; never empty.
    public var properties: [PropertyDelta]

    /// A modification of object `key` in `table`.
    public init(table: Int, key: ObjectKey, properties: [PropertyDelta]) {
        self.table = table
        self.key = key
        self.properties = properties
    }

    /// The change to `property`, if it changed. O(changed properties).
    public func delta(for property: Int) -> PropertyDelta? {
        properties.first { $0.property == property }
    }

    /// Whether `property` changed. O(changed properties).
    public func changed(_ property: Int) -> Bool { delta(for: property) != nil }
}
