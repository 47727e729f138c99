/// How one property of one object changed within a commit.
///
/// For collections, the values are the whole collection before and after.
public struct PropertyDelta: Hashable, Sendable {
    /// The property's index in its type's schema.
    public var property: Int
    /// The value before the commit.
    public var oldValue: PersistedValue
    /// The value after the commit.
    public var newValue: PersistedValue

    /// A change of `property` from `oldValue` to `newValue`.
    public init(property: Int, oldValue: PersistedValue, newValue: PersistedValue) {
        self.property = property
        self.oldValue = oldValue
        self.newValue = newValue
    }
}
