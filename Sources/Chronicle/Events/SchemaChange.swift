/// A change to the journal's schema other than a new type or an added
/// property: what a migration records (see ``Event/changeSchema(_:)``).
///
/// Each change rewrites the state's tables to the new schema when it is
/// folded; the commits before it are never rewritten, and fold with the
/// schema they were written with.
public enum SchemaChange: Hashable, Sendable {
    /// The property at `property` of `table` removed, with its values.
    /// The properties after it move down one index.
    case removeProperty(table: Int, property: Int)
    /// The property at `property` of `table` renamed; its values stay.
    case renameProperty(table: Int, property: Int, to: String)
    /// The property at `property` of `table` redeclared as `schema` (same
    /// name): another type, optionality, link target, index or primary
    /// key. A value that fits the new declaration is kept; any other
    /// becomes the new declaration's default (a migration then sets it).
    /// Links to another type are never kept (they would name keys of the
    /// old target's table).
    case changeProperty(table: Int, property: Int, PropertySchema)
    /// The type at `table` renamed; links to it follow.
    case renameType(table: Int, to: String)
    /// The type at `table` removed, with its objects. No other type may
    /// link to it. The types after it move down one table index.
    case removeType(table: Int)
    /// The type at `table` made embedded (each object must then have
    /// exactly one owner; those with none are deleted) or top-level.
    case changeEmbedding(table: Int, isEmbedded: Bool)
    /// The schema version the app declared (``Store/Configuration/schemaVersion``)
    /// from this commit on.
    case setSchemaVersion(UInt64)
}

extension SchemaChange {
    /// `schema` (a journal's types, in table order) after this change, for
    /// tools that follow a journal's schema without folding its objects.
    /// A change that does not apply leaves it as it is.
    public func applied(to schema: [TypeSchema]) -> [TypeSchema] {
        var schema = schema
        func has(_ table: Int, _ property: Int? = nil) -> Bool {
            schema.indices.contains(table) && (property.map { schema[table].properties.indices.contains($0) } ?? true)
        }
        switch self {
        case .setSchemaVersion: break
        case let .removeProperty(table, property) where has(table, property):
            schema[table].properties.remove(at: property)
        case let .renameProperty(table, property, name) where has(table, property):
            schema[table].properties[property].name = name
        case let .changeProperty(table, property, declared) where has(table, property):
            schema[table].properties[property] = declared
        case let .renameType(table, name) where has(table):
            let old = schema[table].name
            for index in schema.indices {
                for property in schema[index].properties.indices where schema[index].properties[property].objectType == old {
                    schema[index].properties[property].objectType = name
                }
            }
            schema[table].name = name
        case let .removeType(table) where has(table):
            schema.remove(at: table)
        case let .changeEmbedding(table, isEmbedded) where has(table):
            schema[table].isEmbedded = isEmbedded
        default: break
        }
        return schema
    }

    /// The name of the change's case, as the journal format and the
    /// `chronicle` tool spell it.
    public var kind: String {
        switch self {
        case .removeProperty: "removeProperty"
        case .renameProperty: "renameProperty"
        case .changeProperty: "changeProperty"
        case .renameType: "renameType"
        case .removeType: "removeType"
        case .changeEmbedding: "changeEmbedding"
        case .setSchemaVersion: "setSchemaVersion"
        }
    }

    /// The table the change concerns, if one.
    public var table: Int? {
        switch self {
        case .setSchemaVersion: nil
        case .removeProperty(let table, _), .renameProperty(let table, _, _), .changeProperty(let table, _, _),
             .renameType(let table, _), .removeType(let table), .changeEmbedding(let table, _): table
        }
    }

    /// What the change does, with the names `schema` (the schema before
    /// it) gives its table and property: `Pet.age renamed to years`.
    public func summary(in schema: [TypeSchema]) -> String {
        func type(_ table: Int) -> String { schema.indices.contains(table) ? schema[table].name : "table \(table)" }
        func property(_ table: Int, _ property: Int) -> String {
            guard schema.indices.contains(table), schema[table].properties.indices.contains(property) else {
                return "\(type(table)).property \(property)"
            }
            return "\(type(table)).\(schema[table].properties[property].name)"
        }
        switch self {
        case let .removeProperty(table, index): return "\(property(table, index)) removed"
        case let .renameProperty(table, index, name): return "\(property(table, index)) renamed to \(name)"
        case let .changeProperty(table, index, declared):
            return "\(property(table, index)) is now \(declared.swiftTypeName)"
                + (declared.isPrimaryKey ? " (primary key)" : "") + (declared.isIndexed ? " (indexed)" : "")
        case let .renameType(table, name): return "\(type(table)) renamed to \(name)"
        case let .removeType(table): return "\(type(table)) removed"
        case let .changeEmbedding(table, isEmbedded):
            return "\(type(table)) is now \(isEmbedded ? "an EmbeddedObject" : "a top-level Object")"
        case let .setSchemaVersion(version): return "schema version \(version)"
        }
    }
}
