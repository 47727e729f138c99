import Chronicle
import Foundation

/// Renders journal data as text, with names from the journal's own schema.
enum Render {
    /// A time as ISO 8601 in UTC with milliseconds.
    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!))
    }

    static func typeName(_ schema: [TypeSchema], _ table: Int) -> String {
        schema.indices.contains(table) ? schema[table].name : "table\(table)"
    }

    static func propertyName(_ schema: [TypeSchema], _ table: Int, _ property: Int) -> String {
        guard schema.indices.contains(table), schema[table].properties.indices.contains(property) else { return "property\(property)" }
        return schema[table].properties[property].name
    }

    static func object(_ schema: [TypeSchema], _ table: Int, _ key: ObjectKey) -> String {
        "\(typeName(schema, table))\(key)"
    }

    /// `{name: value, …}` for the values of an object of `table`.
    static func values(_ values: some Sequence<PersistedValue>, _ schema: [TypeSchema], _ table: Int) -> String {
        "{" + values.enumerated().map { "\(propertyName(schema, table, $0.offset)): \($0.element)" }.joined(separator: ", ") + "}"
    }

    static func property(_ property: PropertySchema) -> String {
        var type = property.type == .object ? (property.objectType ?? "object") : "\(property.type)"
        if property.isOptional { type += "?" }
        switch property.collection {
        case .none: break
        case .list: type = "List<\(type)>"
        case .set: type = "Set<\(type)>"
        case .map: type = "Map<String, \(type)>"
        }
        var flags: [String] = []
        if property.isPrimaryKey { flags.append("primary key") }
        if property.isIndexed { flags.append("indexed") }
        return "\(property.name): \(type)" + (flags.isEmpty ? "" : " (\(flags.joined(separator: ", ")))")
    }

    /// The kind of an event: its case name.
    static func kind(_ event: Event) -> String {
        switch event {
        case .defineType: "defineType"
        case .addProperty: "addProperty"
        case .changeSchema(let change): change.kind
        case .create: "create"
        case .set: "set"
        case .delete: "delete"
        case .listInsert: "listInsert"
        case .listRemove: "listRemove"
        case .listMove: "listMove"
        case .listReplace: "listReplace"
        case .setInsert: "setInsert"
        case .setRemove: "setRemove"
        case .mapSet: "mapSet"
        case .mapRemove: "mapRemove"
        case .clear: "clear"
        }
    }

    /// The table an event concerns, schema events included.
    static func table(_ event: Event, _ schema: [TypeSchema]) -> Int? {
        switch event {
        case .defineType(let type): schema.firstIndex { $0.name == type.name } ?? schema.count
        case .addProperty(let table, _): table
        case .changeSchema(let change): change.table
        default: event.target?.table
        }
    }

    /// A short description: what and where, no values.
    static func summary(_ event: Event, _ schema: [TypeSchema]) -> String {
        switch event {
        case .defineType(let type): return "defineType \(type.name)"
        case .addProperty(let table, let property): return "addProperty \(typeName(schema, table)).\(property.name)"
        case .changeSchema(let change): return "\(change.kind) \(change.summary(in: schema))"
        case .create(let table, let key, _), .delete(let table, let key): return "\(kind(event)) \(object(schema, table, key))"
        case .set(let t, let k, let p, _), .listInsert(let t, let k, let p, _, _), .listRemove(let t, let k, let p, _),
             .listMove(let t, let k, let p, _, _), .listReplace(let t, let k, let p, _, _), .setInsert(let t, let k, let p, _),
             .setRemove(let t, let k, let p, _), .mapSet(let t, let k, let p, _, _), .mapRemove(let t, let k, let p, _),
             .clear(let t, let k, let p):
            return "\(kind(event)) \(object(schema, t, k)).\(propertyName(schema, t, p))"
        }
    }

    /// A full description, values included.
    static func detail(_ event: Event, _ schema: [TypeSchema]) -> String {
        switch event {
        case .defineType(let type):
            return "defineType \(type.name)\(type.isEmbedded ? " (embedded)" : "") {"
                + type.properties.map(property).joined(separator: ", ") + "}"
        case .addProperty(let table, let added): return "addProperty \(typeName(schema, table)).\(property(added))"
        case .changeSchema: return summary(event, schema)
        case .create(let table, let key, let values): return "create \(object(schema, table, key)) \(self.values(values, schema, table))"
        case .delete: return summary(event, schema)
        case .set(_, _, _, let value), .setInsert(_, _, _, let value), .setRemove(_, _, _, let value):
            return "\(summary(event, schema)) = \(value)"
        case .listInsert(_, _, _, let index, let value), .listReplace(_, _, _, let index, let value):
            return "\(summary(event, schema))[\(index)] = \(value)"
        case .listRemove(_, _, _, let index): return "\(summary(event, schema))[\(index)]"
        case .listMove(_, _, _, let from, let to): return "\(summary(event, schema)) \(from) → \(to)"
        case .mapSet(_, _, _, let mapKey, let value): return "\(summary(event, schema))[\(JSONLines.quote(mapKey))] = \(value)"
        case .mapRemove(_, _, _, let mapKey): return "\(summary(event, schema))[\(JSONLines.quote(mapKey))]"
        case .clear: return summary(event, schema)
        }
    }
}

/// The schema as a journal's events build it, tracked while streaming commits.
struct SchemaTracker {
    private(set) var types: [TypeSchema] = []

    mutating func apply(_ commit: Commit) {
        for event in commit.events { apply(event) }
    }

    mutating func apply(_ event: Event) {
        switch event {
        case .defineType(let type): types.append(type)
        case .addProperty(let table, let property) where types.indices.contains(table): types[table].properties.append(property)
        case .changeSchema(let change): types = change.applied(to: types)
        default: break
        }
    }

    /// Applies a commit's events one by one, returning the table each concerns.
    mutating func tables(of commit: Commit) -> [Int?] {
        commit.events.map { event in
            defer { apply(event) }
            return Render.table(event, types)
        }
    }
}
