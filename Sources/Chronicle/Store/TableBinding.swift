/// One model class bound to one table of one store: how the class's
/// `@Persisted` ordinals map to the journal's property indexes there.
///
/// The journal may order a type's properties differently from the class
/// (properties added by a migration come last), so the mapping is per store.
final class TableBinding: Sendable {
    // Objects keep their store alive through this reference; the store
    // holds its bindings weakly, so there is no cycle.
    let store: Store
    let index: Int
    let metadata: ClassMetadata
    /// For each ordinal, the journal's property index (−1 for linking objects).
    private let propertyByOrdinal: [Int]
    /// How many properties the journal's schema had when this was built; a
    /// migration that appends properties makes the binding stale.
    let schemaPropertyCount: Int

    init(store: Store, index: Int, metadata: ClassMetadata, schemaPropertyCount: Int, propertyByOrdinal: [Int]) {
        self.store = store
        self.index = index
        self.metadata = metadata
        self.schemaPropertyCount = schemaPropertyCount
        self.propertyByOrdinal = propertyByOrdinal
    }

    convenience init(store: Store, index: Int, metadata: ClassMetadata, schema: TypeSchema) {
        self.init(store: store, index: index, metadata: metadata, schemaPropertyCount: schema.properties.count,
                  propertyByOrdinal: Self.propertyByOrdinal(metadata, schema))
    }

    /// For each ordinal of `metadata`'s class, the index of its property in `schema` (−1 for linking objects).
    static func propertyByOrdinal(_ metadata: ClassMetadata, _ schema: TypeSchema) -> [Int] {
        metadata.properties.map { property in
            property.kind.isLinkingObjects ? -1 : (schema.propertyIndex(named: property.name) ?? -1)
        }
    }

    @inline(__always)
    func property(forOrdinal ordinal: Int) -> Int { propertyByOrdinal[ordinal] }

    /// The journal property index of the property named `name`.
    func property(named name: String) -> Int? {
        guard let ordinal = metadata.ordinalByName[name] else { return nil }
        let index = propertyByOrdinal[ordinal]
        return index >= 0 ? index : nil
    }
}
