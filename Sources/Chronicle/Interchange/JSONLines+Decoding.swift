import Foundation

/// Decoding the JSON Lines mapping back into commits: strict, and within
/// the limits of the binary journal (indexes 0…Int32.max, collections
/// nested at most as deep as the codec allows), so a decoded commit can
/// always be appended.
extension JSONLines {
    /// A JSON value that is not what the mapping expects at `path`.
    struct Mismatch: Error {
        var path: String
        var reason: String
    }

    /// The members of a JSON object, checked for duplicates and, at the end, for unknown names.
    private struct Members {
        let members: [String: JSONValue]
        /// The keys in the order the line has them: errors name the first bad
        /// member, the same one every time (a dictionary's order differs
        /// from one instance to the next).
        let keys: [String]
        let path: String
        private var used = Set<String>()

        init(_ value: JSONValue, path: String) throws(Mismatch) {
            guard case .object(let list) = value else { throw Mismatch(path: path, reason: "expected an object") }
            var members: [String: JSONValue] = [:]
            for (key, value) in list {
                guard members.updateValue(value, forKey: key) == nil else {
                    throw Mismatch(path: path, reason: "member \"\(key)\" appears twice")
                }
            }
            self.members = members
            self.keys = list.map(\.key)
            self.path = path
        }

        func child(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

        mutating func required(_ key: String) throws(Mismatch) -> JSONValue {
            guard let value = members[key] else { throw Mismatch(path: path, reason: "member \"\(key)\" is missing") }
            used.insert(key)
            return value
        }

        mutating func optional(_ key: String) -> JSONValue? {
            used.insert(key)
            return members[key]
        }

        func finish() throws(Mismatch) {
            if let unknown = members.keys.sorted().first(where: { !used.contains($0) }) {
                throw Mismatch(path: path, reason: "unknown member \"\(unknown)\"")
            }
        }
    }

    /// The single member of a tagged object: its name and value.
    private static func tag(_ value: JSONValue, path: String) throws(Mismatch) -> (String, JSONValue)? {
        guard case .object(let members) = value else { return nil }
        guard members.count == 1 else { throw Mismatch(path: path, reason: "expected an object with one member") }
        return members[0]
    }

    private static func string(_ value: JSONValue, _ path: String) throws(Mismatch) -> String {
        guard case .string(let text) = value else { throw Mismatch(path: path, reason: "expected a string") }
        return text
    }

    private static func bool(_ value: JSONValue, _ path: String) throws(Mismatch) -> Bool {
        guard case .bool(let flag) = value else { throw Mismatch(path: path, reason: "expected true or false") }
        return flag
    }

    private static func int64(_ value: JSONValue, _ path: String) throws(Mismatch) -> Int64 {
        guard case .number(let text) = value, let number = Int64(text) else {
            throw Mismatch(path: path, reason: "expected an integer that fits 64 bits")
        }
        return number
    }

    private static func index(_ value: JSONValue, _ path: String) throws(Mismatch) -> Int {
        let number = try int64(value, path)
        guard number >= 0, number <= Int64(Int32.max) else {
            throw Mismatch(path: path, reason: "expected an index from 0 to \(Int32.max)")
        }
        return Int(number)
    }

    private static func double(_ value: JSONValue, _ path: String) throws(Mismatch) -> Double {
        switch value {
        case .number(let text):
            guard let number = Double(text), number.isFinite else { throw Mismatch(path: path, reason: "number out of range") }
            return number
        case .string(let text) where text.hasPrefix("0x") && text.count == 18:
            guard let bits = UInt64(text.dropFirst(2), radix: 16) else { break }
            return Double(bitPattern: bits)
        default:
            break
        }
        throw Mismatch(path: path, reason: "expected a number or a \"0x\" and 16 hexadecimal digits")
    }

    private static func float(_ value: JSONValue, _ path: String) throws(Mismatch) -> Float {
        switch value {
        case .number(let text):
            guard let number = Float(text), number.isFinite else { throw Mismatch(path: path, reason: "number out of range") }
            return number
        case .string(let text) where text.hasPrefix("0x") && text.count == 10:
            guard let bits = UInt32(text.dropFirst(2), radix: 16) else { break }
            return Float(bitPattern: bits)
        default:
            break
        }
        throw Mismatch(path: path, reason: "expected a number or a \"0x\" and 8 hexadecimal digits")
    }

    private static func array(_ value: JSONValue, _ path: String) throws(Mismatch) -> [JSONValue] {
        guard case .array(let elements) = value else { throw Mismatch(path: path, reason: "expected an array") }
        return elements
    }

    // MARK: Commit

    static func commit(_ value: JSONValue) throws(Mismatch) -> Commit {
        var members = try Members(value, path: "")
        let versionValue = try members.required("version")
        guard case .number(let versionText) = versionValue, let version = UInt64(versionText), version > 0 else {
            throw Mismatch(path: "version", reason: "expected a positive integer")
        }
        let timestamp = Date(timeIntervalSinceReferenceDate: try double(try members.required("timestamp"), "timestamp"))
        let label = try members.optional("label").map { (value) throws(Mismatch) in try string(value, "label") }
        var metadata: [String: String] = [:]
        var metadataMembers = try Members(try members.required("metadata"), path: "metadata")
        for key in metadataMembers.keys {
            metadata[key] = try string(try metadataMembers.required(key), metadataMembers.child(key))
        }
        var events: [Event] = []
        for (index, element) in try array(try members.required("events"), "events").enumerated() {
            events.append(try event(element, path: "events[\(index)]"))
        }
        try members.finish()
        return Commit(version: version, timestamp: timestamp, label: label, metadata: metadata, events: events)
    }

    // MARK: Events

    private static func event(_ value: JSONValue, path: String) throws(Mismatch) -> Event {
        guard let (kind, body) = try tag(value, path: path) else { throw Mismatch(path: path, reason: "expected an event object") }
        let path = "\(path).\(kind)"
        var m = try Members(body, path: path)
        func table() throws(Mismatch) -> Int { try index(try m.required("table"), m.child("table")) }
        func key() throws(Mismatch) -> ObjectKey { ObjectKey(try int64(try m.required("key"), m.child("key"))) }
        func property() throws(Mismatch) -> Int { try index(try m.required("property"), m.child("property")) }
        func number(_ name: String) throws(Mismatch) -> Int { try index(try m.required(name), m.child(name)) }
        func payload() throws(Mismatch) -> PersistedValue { try persisted(try m.required("value"), path: m.child("value"), depth: 0) }
        func mapKey() throws(Mismatch) -> String { try string(try m.required("mapKey"), m.child("mapKey")) }
        let event: Event
        switch kind {
        case "defineType":
            let name = try string(try m.required("name"), m.child("name"))
            let embedded = try bool(try m.required("embedded"), m.child("embedded"))
            var properties: [PropertySchema] = []
            for (index, element) in try array(try m.required("properties"), m.child("properties")).enumerated() {
                properties.append(try propertySchema(element, path: m.child("properties[\(index)]")))
            }
            event = .defineType(TypeSchema(name: name, isEmbedded: embedded, properties: properties))
        case "addProperty":
            event = .addProperty(table: try table(), try propertySchema(try m.required("property"), path: m.child("property")))
        case "removeProperty":
            event = .changeSchema(.removeProperty(table: try table(), property: try property()))
        case "renameProperty":
            event = .changeSchema(.renameProperty(table: try table(), property: try property(),
                                                  to: try string(try m.required("to"), m.child("to"))))
        case "changeProperty":
            event = .changeSchema(.changeProperty(table: try table(), property: try property(),
                                                  try propertySchema(try m.required("schema"), path: m.child("schema"))))
        case "renameType":
            event = .changeSchema(.renameType(table: try table(), to: try string(try m.required("to"), m.child("to"))))
        case "removeType":
            event = .changeSchema(.removeType(table: try table()))
        case "changeEmbedding":
            event = .changeSchema(.changeEmbedding(table: try table(),
                                                   isEmbedded: try bool(try m.required("embedded"), m.child("embedded"))))
        case "setSchemaVersion":
            let version = try int64(try m.required("version"), m.child("version"))
            guard version >= 0 else { throw Mismatch(path: m.child("version"), reason: "a schema version is not negative") }
            event = .changeSchema(.setSchemaVersion(UInt64(version)))
        case "create":
            let (t, k) = (try table(), try key())
            var values: [PersistedValue] = []
            for (index, element) in try array(try m.required("values"), m.child("values")).enumerated() {
                values.append(try persisted(element, path: m.child("values[\(index)]"), depth: 0))
            }
            event = .create(table: t, key: k, values: values)
        case "set": event = .set(table: try table(), key: try key(), property: try property(), value: try payload())
        case "delete": event = .delete(table: try table(), key: try key())
        case "listInsert":
            event = .listInsert(table: try table(), key: try key(), property: try property(), index: try number("index"), value: try payload())
        case "listRemove": event = .listRemove(table: try table(), key: try key(), property: try property(), index: try number("index"))
        case "listMove":
            event = .listMove(table: try table(), key: try key(), property: try property(), from: try number("from"), to: try number("to"))
        case "listReplace":
            event = .listReplace(table: try table(), key: try key(), property: try property(), index: try number("index"), value: try payload())
        case "setInsert": event = .setInsert(table: try table(), key: try key(), property: try property(), value: try payload())
        case "setRemove": event = .setRemove(table: try table(), key: try key(), property: try property(), value: try payload())
        case "mapSet":
            event = .mapSet(table: try table(), key: try key(), property: try property(), mapKey: try mapKey(), value: try payload())
        case "mapRemove": event = .mapRemove(table: try table(), key: try key(), property: try property(), mapKey: try mapKey())
        case "clear": event = .clear(table: try table(), key: try key(), property: try property())
        default: throw Mismatch(path: path, reason: "unknown event \"\(kind)\"")
        }
        try m.finish()
        return event
    }

    private static func propertySchema(_ value: JSONValue, path: String) throws(Mismatch) -> PropertySchema {
        var m = try Members(value, path: path)
        let name = try string(try m.required("name"), m.child("name"))
        let typeName = try string(try m.required("type"), m.child("type"))
        guard let type = PropertyType.allCases.first(where: { "\($0)" == typeName }) else {
            throw Mismatch(path: m.child("type"), reason: "unknown property type \"\(typeName)\"")
        }
        let objectType = try m.optional("objectType").map { (value) throws(Mismatch) in try string(value, m.child("objectType")) }
        let collectionName = try string(try m.required("collection"), m.child("collection"))
        let kinds: [CollectionKind] = [.none, .list, .set, .map]
        guard let collection = kinds.first(where: { "\($0)" == collectionName }) else {
            throw Mismatch(path: m.child("collection"), reason: "unknown collection kind \"\(collectionName)\"")
        }
        let property = PropertySchema(name: name, type: type, objectType: objectType, collection: collection,
                                      isOptional: try bool(try m.required("optional"), m.child("optional")),
                                      isPrimaryKey: try bool(try m.required("primaryKey"), m.child("primaryKey")),
                                      isIndexed: try bool(try m.required("indexed"), m.child("indexed")),
                                      declaredDefault: try m.optional("default").map { (value) throws(Mismatch) in
                                          try persisted(value, path: m.child("default"), depth: 0)
                                      })
        try m.finish()
        return property
    }

    // MARK: Values

    private static func persisted(_ value: JSONValue, path: String, depth: Int) throws(Mismatch) -> PersistedValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number: return .int(try int64(value, path))
        case .string(let text): return .string(text)
        case .array: throw Mismatch(path: path, reason: "a bare array is not a value; use {\"list\":[…]} or {\"set\":[…]}")
        case .object:
            guard let (tag, body) = try tag(value, path: path) else { throw Mismatch(path: path, reason: "expected a value") }
            let path = "\(path).\(tag)"
            func collection() throws(Mismatch) -> [PersistedValue] {
                guard depth < EventCodec.maximumNesting else {
                    throw Mismatch(path: path, reason: "collections nested deeper than \(EventCodec.maximumNesting)")
                }
                var elements: [PersistedValue] = []
                for (index, element) in try array(body, path).enumerated() {
                    elements.append(try persisted(element, path: "\(path)[\(index)]", depth: depth + 1))
                }
                return elements
            }
            switch tag {
            case "double": return .double(try double(body, path))
            case "float": return .float(try float(body, path))
            case "date": return .date(Date(timeIntervalSinceReferenceDate: try double(body, path)))
            case "data":
                guard let data = Data(base64Encoded: try string(body, path)) else { throw Mismatch(path: path, reason: "invalid base64") }
                return .data(data)
            case "uuid":
                guard let uuid = UUID(uuidString: try string(body, path)) else { throw Mismatch(path: path, reason: "invalid UUID") }
                return .uuid(uuid)
            case "objectId":
                guard let id = ObjectId(try string(body, path)) else { throw Mismatch(path: path, reason: "expected 24 hexadecimal digits") }
                return .objectId(id)
            case "decimal":
                let text = try string(body, path)
                guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), decimal.description == text else {
                    throw Mismatch(path: path, reason: "invalid decimal \"\(text)\"")
                }
                return .decimal(decimal)
            case "link": return .link(ObjectKey(try int64(body, path)))
            case "list": return .list(try collection())
            case "set": return .set(try collection())
            case "map":
                guard depth < EventCodec.maximumNesting else {
                    throw Mismatch(path: path, reason: "collections nested deeper than \(EventCodec.maximumNesting)")
                }
                guard case .object(let members) = body else { throw Mismatch(path: path, reason: "expected an object") }
                var entries: [MapEntry] = []
                for (key, element) in members {
                    entries.append(MapEntry(key: key, value: try persisted(element, path: "\(path).\(key)", depth: depth + 1)))
                }
                return .map(entries)
            default:
                throw Mismatch(path: path, reason: "unknown value tag \"\(tag)\"")
            }
        }
    }
}
