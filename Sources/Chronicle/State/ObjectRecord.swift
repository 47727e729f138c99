/// The stored values of one object: one per property of its type, in
/// schema order.
public struct ObjectRecord: Sendable, Hashable {
    /// The values, indexed like ``TypeSchema/properties``.
    public var values: ContiguousArray<PersistedValue>

    /// A record holding `values`.
    public init(values: ContiguousArray<PersistedValue>) {
        self.values = values
    }

    /// The value of the property at `property`. O(1).
    public subscript(property: Int) -> PersistedValue {
        get { values[property] }
        set { values[property] = newValue }
    }
}
