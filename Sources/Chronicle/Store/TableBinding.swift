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
    /// For each ordinal, the journal's property index (−1 for linking
    /// objects) in the low 32 bits, and one more than the byte offset of
    /// its slot in every record of the table, where the schema fixes it
    /// (``RecordStorage/fixedOffset(of:in:)``; 0 where it does not), above:
    /// a read finds both with one load.
    private let propertyAndSlotByOrdinal: [Int]
    /// How many properties the journal's schema had when this was built; a
    /// migration that appends properties makes the binding stale.
    let schemaPropertyCount: Int
    /// The schema version of the state this was built for: a migration may
    /// rename or redeclare properties without changing their count.
    let schemaVersion: UInt64

    init(store: Store, index: Int, metadata: ClassMetadata, schema: TypeSchema, schemaVersion: UInt64) {
        let propertyByOrdinal = Self.propertyByOrdinal(metadata, schema)
        let schemaPropertyCount = schema.properties.count
        self.store = store
        self.schemaVersion = schemaVersion
        self.index = index
        self.metadata = metadata
        self.schemaPropertyCount = schemaPropertyCount
        propertyAndSlotByOrdinal = propertyByOrdinal.map { property in
            guard property >= 0, let offset = RecordStorage.fixedOffset(of: property, in: schema.properties) else {
                return Int(UInt32(truncatingIfNeeded: property))
            }
            return Int(UInt32(truncatingIfNeeded: property)) | (offset + 1) << 32
        }
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

    /// For each ordinal of `metadata`'s class, the index of its property in `schema` (−1 for linking objects).
    static func propertyByOrdinal(_ metadata: ClassMetadata, _ schema: TypeSchema) -> [Int] {
        metadata.properties.map { property in
            property.kind.isLinkingObjects ? -1 : (schema.propertyIndex(named: property.name) ?? -1)
        }
    }

    @inline(__always)
    func property(forOrdinal ordinal: Int) -> Int { Int(Int32(truncatingIfNeeded: propertyAndSlotByOrdinal[ordinal])) }

    /// The journal property index of ordinal `ordinal` (−1 for linking
    /// objects) and the byte offset of its slot in every record of the
    /// table, or −1 where the schema does not fix it (see
    /// ``RecordStorage/fixedOffset(of:in:)``). O(1), one load.
    @inline(__always)
    func propertyAndSlot(forOrdinal ordinal: Int) -> (property: Int, slot: Int) {
        let packed = propertyAndSlotByOrdinal[ordinal]
        return (Int(Int32(truncatingIfNeeded: packed)), (packed &>> 32) &- 1)
    }

    /// The journal property index of the property named `name`.
    func property(named name: String) -> Int? {
        guard let ordinal = metadata.ordinalByName[name] else { return nil }
        let index = property(forOrdinal: ordinal)
        return index >= 0 ? index : nil
    }
}
