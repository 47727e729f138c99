/// Where each type and property of a later schema came from in an earlier
/// one, across the schema events in between: a renamed type or property is
/// the same one under another name, a retyped property the same one
/// converted, and those defined or added in between have no origin.
///
/// Diffs compare objects through it, so that a version before a migration
/// and one after it line up by identity, not by name or index.
struct SchemaLineage: Sendable {
    /// The later schema: the earlier one with the events applied.
    private(set) var schema: [TypeSchema]
    /// Per table of the later schema: its index in the earlier one, or `nil`.
    private(set) var tables: [Int?]
    /// Per table of the later schema, per property: its index in the earlier
    /// table, or `nil`.
    private(set) var properties: [[Int?]]

    /// The lineage of `schema` to itself.
    init(_ schema: [TypeSchema]) {
        self.schema = schema
        tables = Array(schema.indices)
        properties = schema.map { Array($0.properties.indices) }
    }

    /// Follows one more event (one that folded); other than schema events,
    /// events change nothing.
    /// - Complexity: O(properties of the table) for a removal, O(types)
    ///   for a renamed type, O(1) otherwise.
    mutating func apply(_ event: Event) {
        switch event {
        case .defineType(let type): schema.append(type)
        case .addProperty(let table, let property) where schema.indices.contains(table): schema[table].properties.append(property)
        case .changeSchema(let change): schema = change.applied(to: schema)
        default: return
        }
        switch event {
        case .defineType(let type):
            tables.append(nil)
            properties.append(Array(repeating: nil, count: type.properties.count))
        case .addProperty(let table, _) where properties.indices.contains(table):
            properties[table].append(nil)
        case .changeSchema(.removeProperty(let table, let property))
            where properties.indices.contains(table) && properties[table].indices.contains(property):
            properties[table].remove(at: property)
        case .changeSchema(.removeType(let table)) where tables.indices.contains(table):
            tables.remove(at: table)
            properties.remove(at: table)
        default:
            break
        }
    }
}
