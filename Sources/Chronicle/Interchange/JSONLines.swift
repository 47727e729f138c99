import Foundation

/// The JSON Lines form of a journal: one commit per line, for people and
/// for other tools. Encoding then decoding gives back the identical commit,
/// bit for bit (doubles, floats, dates, data, decimals, identifiers).
///
/// A line is an object with `version`, `timestamp`, an optional `label`,
/// `metadata` (string → string) and `events`:
///
/// ```json
/// {"version":3,"timestamp":786000000.25,"label":"promote","metadata":{},"events":[{"set":{"table":0,"key":1,"property":5,"value":"Management"}}]}
/// ```
///
/// **Events** are objects with one member named after the ``Event`` case:
/// `defineType` (a type: `name`, `embedded`, `properties`), `addProperty`
/// (`table`, `property`), `create` (`table`, `key`, `values` in property
/// order), `set` (`table`, `key`, `property`, `value`), `delete`,
/// `listInsert`/`listReplace` (`index`, `value`), `listRemove` (`index`),
/// `listMove` (`from`, `to`), `setInsert`/`setRemove` (`value`), `mapSet`
/// (`mapKey`, `value`), `mapRemove` (`mapKey`), `clear`; and a migration's
/// schema changes (``SchemaChange``): `removeProperty` (`table`, `property`),
/// `renameProperty` (`to`), `changeProperty` (`schema`), `renameType` (`to`),
/// `removeType`, `changeEmbedding` (`embedded`), `setSchemaVersion`
/// (`version`). Tables and
/// properties are indexes, as in the binary journal; the `defineType` and
/// `addProperty` events of the journal name them. A property is an object
/// with `name`, `type` (`bool`, `int`, `int8` … `int64`, `float`, `double`,
/// `string`, `data`, `date`, `uuid`, `url`, `decimal`, `objectId`, `object`),
/// optional `objectType`, `collection` (`none`, `list`, `set`, `map`),
/// `optional`, `primaryKey` and `indexed`, and `default` (a value) when the
/// property records a declared default.
///
/// **Values**: `null`; `true`/`false`; an integer is a JSON integer; a string
/// is a JSON string; the others are tagged objects — `{"double":1.5}`,
/// `{"float":0.1}`, `{"date":786000000.25}` (seconds since 2001-01-01 UTC),
/// `{"data":"<base64>"}`, `{"uuid":"E621E1F8-…"}`, `{"objectId":"<24 hex>"}`,
/// `{"decimal":"12.50"}`, `{"link":3}` (an object key), `{"list":[…]}`,
/// `{"set":[…]}`, `{"map":{"key":value,…}}`. A double, float or timestamp
/// that a JSON number cannot carry exactly (NaN, infinities) is written as
/// its IEEE-754 bit pattern in a string: `{"double":"0x7ff8000000000000"}`.
///
/// Decoding is strict: unknown or missing members, wrong types and numbers
/// out of range are ``JSONLinesError``s naming the line and member.
public enum JSONLines {
    /// The commit as one line of JSON (without the newline).
    /// - Complexity: O(size of the commit).
    public static func encode(_ commit: Commit) -> String {
        var members: [(key: String, value: JSONValue)] = [
            ("version", .number(String(commit.version))),
            ("timestamp", exact(commit.timestamp.timeIntervalSinceReferenceDate)),
        ]
        if let label = commit.label { members.append(("label", .string(label))) }
        members.append(("metadata", .object(commit.metadata.keys.sorted().map { ($0, .string(commit.metadata[$0]!)) })))
        members.append(("events", .array(commit.events.map(json))))
        return JSONValue.object(members).text
    }

    /// A value in the mapping's JSON form, such as `"Ann"`, `42` or `{"link":3}`.
    public static func encode(_ value: PersistedValue) -> String { json(value).text }

    /// A string as a JSON string literal, quotes and escapes included.
    public static func quote(_ string: String) -> String { JSONValue.string(string).text }

    /// Decodes one line.
    /// - Parameters:
    ///   - line: One line of JSON, without its newline.
    ///   - lineNumber: The line's number, for errors.
    /// - Throws: ``JSONLinesError/syntax(line:column:reason:)`` or ``JSONLinesError/invalidCommit(line:path:reason:)``.
    public static func decode(_ line: String, lineNumber: Int = 1) throws(JSONLinesError) -> Commit {
        try decode(Array(line.utf8), lineNumber: lineNumber)
    }

    static func decode(_ bytes: [UInt8], lineNumber: Int) throws(JSONLinesError) -> Commit {
        let value: JSONValue
        do { value = try JSONValue.parse(bytes) } catch {
            throw .syntax(line: lineNumber, column: error.offset + 1, reason: error.reason)
        }
        do {
            return try commit(value)
        } catch {
            throw .invalidCommit(line: lineNumber, path: error.path.isEmpty ? "the line" : error.path, reason: error.reason)
        }
    }

    // MARK: Encoding

    static func exact(_ value: Double) -> JSONValue {
        let text = "\(value)"
        if value.isFinite, let back = Double(text), back.bitPattern == value.bitPattern { return .number(text) }
        return .string("0x" + hex(value.bitPattern, digits: 16))
    }

    static func exact(_ value: Float) -> JSONValue {
        let text = "\(value)"
        if value.isFinite, let back = Float(text), back.bitPattern == value.bitPattern { return .number(text) }
        return .string("0x" + hex(UInt64(value.bitPattern), digits: 8))
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: digits - text.count) + text
    }

    static func json(_ value: PersistedValue) -> JSONValue {
        switch value {
        case .null: .null
        case .bool(let v): .bool(v)
        case .int(let v): .number(String(v))
        case .string(let v): .string(v)
        case .float(let v): .object([("float", exact(v))])
        case .double(let v): .object([("double", exact(v))])
        case .date(let v): .object([("date", exact(v.timeIntervalSinceReferenceDate))])
        case .data(let v): .object([("data", .string(v.base64EncodedString()))])
        case .uuid(let v): .object([("uuid", .string(v.uuidString))])
        case .objectId(let v): .object([("objectId", .string(v.description))])
        case .decimal(let v): .object([("decimal", .string(v.description))])
        case .link(let key): .object([("link", .number(String(key.rawValue)))])
        case .list(let v): .object([("list", .array(v.map(json)))])
        case .set(let v): .object([("set", .array(v.map(json)))])
        case .map(let entries): .object([("map", .object(entries.map { ($0.key, json($0.value)) }))])
        }
    }

    static func json(_ property: PropertySchema) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("name", .string(property.name)), ("type", .string("\(property.type)"))]
        if let objectType = property.objectType { members.append(("objectType", .string(objectType))) }
        members += [("collection", .string("\(property.collection)")), ("optional", .bool(property.isOptional)),
                    ("primaryKey", .bool(property.isPrimaryKey)), ("indexed", .bool(property.isIndexed))]
        if let declared = property.declaredDefault { members.append(("default", json(declared))) }
        return .object(members)
    }

    /// A schema change: an object with one member named after the ``SchemaChange`` case.
    static func json(_ change: SchemaChange) -> JSONValue {
        func int(_ value: Int) -> JSONValue { .number(String(value)) }
        func tagged(_ name: String, _ members: [(key: String, value: JSONValue)]) -> JSONValue {
            .object([(name, .object(members))])
        }
        switch change {
        case let .removeProperty(table, property):
            return tagged("removeProperty", [("table", int(table)), ("property", int(property))])
        case let .renameProperty(table, property, name):
            return tagged("renameProperty", [("table", int(table)), ("property", int(property)), ("to", .string(name))])
        case let .changeProperty(table, property, schema):
            return tagged("changeProperty", [("table", int(table)), ("property", int(property)), ("schema", json(schema))])
        case let .renameType(table, name):
            return tagged("renameType", [("table", int(table)), ("to", .string(name))])
        case let .removeType(table):
            return tagged("removeType", [("table", int(table))])
        case let .changeEmbedding(table, isEmbedded):
            return tagged("changeEmbedding", [("table", int(table)), ("embedded", .bool(isEmbedded))])
        case let .setSchemaVersion(version):
            return tagged("setSchemaVersion", [("version", .number(String(version)))])
        }
    }

    static func json(_ event: Event) -> JSONValue {
        func int(_ value: Int) -> JSONValue { .number(String(value)) }
        func target(_ table: Int, _ key: ObjectKey, _ property: Int? = nil) -> [(key: String, value: JSONValue)] {
            var members: [(key: String, value: JSONValue)] = [("table", int(table)), ("key", .number(String(key.rawValue)))]
            if let property { members.append(("property", int(property))) }
            return members
        }
        func tagged(_ name: String, _ members: [(key: String, value: JSONValue)]) -> JSONValue {
            .object([(name, .object(members))])
        }
        switch event {
        case .defineType(let type):
            return tagged("defineType", [("name", .string(type.name)), ("embedded", .bool(type.isEmbedded)),
                                         ("properties", .array(type.properties.map(json)))])
        case let .addProperty(table, property):
            return tagged("addProperty", [("table", int(table)), ("property", json(property))])
        case .changeSchema(let change):
            return json(change)
        case let .create(table, key, values):
            return tagged("create", target(table, key) + [("values", .array(values.map(json)))])
        case let .set(table, key, property, value):
            return tagged("set", target(table, key, property) + [("value", json(value))])
        case let .delete(table, key):
            return tagged("delete", target(table, key))
        case let .listInsert(table, key, property, index, value):
            return tagged("listInsert", target(table, key, property) + [("index", int(index)), ("value", json(value))])
        case let .listRemove(table, key, property, index):
            return tagged("listRemove", target(table, key, property) + [("index", int(index))])
        case let .listMove(table, key, property, from, to):
            return tagged("listMove", target(table, key, property) + [("from", int(from)), ("to", int(to))])
        case let .listReplace(table, key, property, index, value):
            return tagged("listReplace", target(table, key, property) + [("index", int(index)), ("value", json(value))])
        case let .setInsert(table, key, property, value):
            return tagged("setInsert", target(table, key, property) + [("value", json(value))])
        case let .setRemove(table, key, property, value):
            return tagged("setRemove", target(table, key, property) + [("value", json(value))])
        case let .mapSet(table, key, property, mapKey, value):
            return tagged("mapSet", target(table, key, property) + [("mapKey", .string(mapKey)), ("value", json(value))])
        case let .mapRemove(table, key, property, mapKey):
            return tagged("mapRemove", target(table, key, property) + [("mapKey", .string(mapKey))])
        case let .clear(table, key, property):
            return tagged("clear", target(table, key, property))
        }
    }
}
