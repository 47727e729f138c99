/// One model class bound to one table of one store: how the class's
/// `@Persisted` ordinals map to the journal's property indexes there.
///
/// The journal may order a type's properties differently from the class
/// (properties added by a migration come last), so the mapping is per store.
final class TableBinding: Sendable {
    // Unowned: the store holds its bindings strongly (a binding made again
    // whenever the last object of its class died cost a weak-reference
    // write, an allocation and side-table reference counting on every
    // handle), so a strong reference back would be a cycle. Whatever keeps
    // a binding beyond one call keeps the store too: a handle's
    // `ObjectBinding`, a collection's `CollectionOwner`, `LinkingObjects`,
    // `Results` (and its iterator). `unowned`, not `unowned(unsafe)`: a
    // mistake traps instead of reading freed memory.
    unowned let store: Store
    let index: Int
    let metadata: ClassMetadata
    /// For each ordinal, the journal's property index (−1 for linking objects).
    private let propertyByOrdinal: [Int]
    /// How many properties the journal's schema had when this was built; a
    /// migration that appends properties makes the binding stale.
    let schemaPropertyCount: Int
    /// The schema version of the state this was built for: a migration may
    /// rename or redeclare properties without changing their count.
    let schemaVersion: UInt64

    init(store: Store, index: Int, metadata: ClassMetadata, schemaPropertyCount: Int, schemaVersion: UInt64,
         propertyByOrdinal: [Int]) {
        self.store = store
        self.schemaVersion = schemaVersion
        self.index = index
        self.metadata = metadata
        self.schemaPropertyCount = schemaPropertyCount
        self.propertyByOrdinal = propertyByOrdinal
        mapsOrdinalsInOrder = propertyByOrdinal.count == schemaPropertyCount
            && propertyByOrdinal.enumerated().allSatisfy { $0 == $1 }
        var absent: [String: PersistedValue] = [:]
        for (ordinal, index) in propertyByOrdinal.enumerated() where index < 0 {
            let schemaIndex = metadata.schemaIndexByOrdinal[ordinal]
            guard schemaIndex >= 0 else { continue }
            absent[metadata.schema.properties[schemaIndex].name] = metadata.declaredDefaults[ordinal]
                ?? metadata.schema.properties[schemaIndex].zeroValue
        }
        absentValues = absent
    }

    /// The properties the class declares and the journal does not have yet
    /// (they are recorded by the first write that uses the class), with the
    /// value every object reads for them until then: the declared default.
    /// Queries compare against these.
    let absentValues: [String: PersistedValue]

    /// Whether `@Persisted` ordinal *i* is schema property *i* for every
    /// property: a new object's values are then its unmanaged values
    /// converted in order, with no default to fill in first.
    let mapsOrdinalsInOrder: Bool

    convenience init(store: Store, index: Int, metadata: ClassMetadata, schema: TypeSchema, schemaVersion: UInt64) {
        self.init(store: store, index: index, metadata: metadata, schemaPropertyCount: schema.properties.count,
                  schemaVersion: schemaVersion, propertyByOrdinal: Self.propertyByOrdinal(metadata, schema))
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
