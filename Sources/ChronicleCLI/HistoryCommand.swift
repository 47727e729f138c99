import Chronicle
import Foundation

/// `chronicle history`: the history of one object or one of its properties.
enum HistoryCommand {
    static func run(path: String, type typeName: String, object: Invocation.ObjectName, property: String?) throws(CLIError) {
        let journal = try JournalInput.open(path)
        let (table, key, schema) = try find(journal, path: path, type: typeName, object: object)
        let components = property?.split(separator: ".").map(String.init) ?? []
        if let property {
            guard let first = components.first, schema[table].propertyIndex(named: first) != nil else {
                throw .usage("\(typeName) has no property \"\(property)\"")
            }
        }
        print("\(typeName)\(key)")
        do {
            if !components.isEmpty {
                for entry in try journal.history(table: table, key: key, path: components) {
                    let change = "\(entry.oldValue.map(\.description) ?? "(created)") → \(entry.newValue.map(\.description) ?? "(deleted)")"
                    print("\(prefix(entry.version, entry.timestamp, entry.label))  \(change)")
                }
            } else {
                for entry in try journal.history(table: table, key: key) {
                    let start = prefix(entry.version, entry.timestamp, entry.label)
                    switch entry.change {
                    case .created(let values):
                        print("\(start)  created " + values.map { "\($0.name): \($0.value)" }.joined(separator: ", "))
                    case .modified(let changes):
                        print("\(start)  " + changes.map { "\($0.name): \($0.oldValue) → \($0.newValue)" }.joined(separator: ", "))
                    case .deleted:
                        print("\(start)  deleted")
                    }
                }
            }
        } catch {
            throw CLIError.from(error, path: path)
        }
    }

    static func prefix(_ version: UInt64, _ timestamp: Date, _ label: String?) -> String {
        let text = String(version)
        return String(repeating: " ", count: max(0, 5 - text.count)) + text
            + "  \(Render.time(timestamp))  \(label.map { JSONLines.quote($0) } ?? "-")"
    }

    /// The table and key of the object named on the command line: `#N`, or
    /// the primary-key value of the last object of the type created with
    /// it. The type is named as at any version: a migration may have
    /// renamed it since (or before) the object was created. Returns the
    /// table's index and the schema at the journal's last version.
    static func find(_ journal: Journal, path: String, type: String, object: Invocation.ObjectName) throws(CLIError) -> (Int, ObjectKey, [TypeSchema]) {
        let text = object.text
        var schema = SchemaTracker()
        // A stable identity per table (indexes move when a type is removed),
        // the identities that were ever named `type`, and per identity the
        // object found (and the primary key it is searched by).
        var identities: [Int] = []
        var nextIdentity = 0
        var named: [Int] = []
        var found: [Int: ObjectKey] = [:]
        var primaryKeys: [Int: PersistedValue?] = [:]
        let direct = object.key
        try JournalInput.forEach(journal, path: path, what: "searching") { (commit) throws(CLIError) in
            for event in commit.events {
                schema.apply(Commit(version: 0, timestamp: commit.timestamp, events: [event]))
                switch event {
                case .defineType:
                    identities.append(nextIdentity)
                    nextIdentity += 1
                case .changeSchema(.removeType(let table)) where identities.indices.contains(table): identities.remove(at: table)
                default: break
                }
                for (index, id) in zip(schema.types.indices, identities) where schema.types[index].name == type && !named.contains(id) {
                    named.append(id)
                }
                guard case let .create(table, key, values) = event, identities.indices.contains(table),
                      schema.types.indices.contains(table) else { continue }
                let id = identities[table]
                if let direct {
                    if key.rawValue == direct { found[id] = key }
                    continue
                }
                guard let pk = schema.types[table].primaryKeyIndex, values.indices.contains(pk) else { continue }
                if primaryKeys[id] == nil { primaryKeys[id] = try? parse(text, as: schema.types[table].properties[pk]) }
                if let wanted = primaryKeys[id] ?? nil, values[pk] == wanted { found[id] = key }
            }
        }
        guard !named.isEmpty else { throw .usage("the journal has no type \"\(type)\"") }
        // The type of that name now, or the last one that had it.
        let id = named.first { identities.firstIndex(of: $0).map { schema.types[$0].name == type } ?? false } ?? named.last!
        guard let table = identities.firstIndex(of: id) else {
            throw .failed("\(type) was removed from \(path) by a migration; its history ends there")
        }
        if direct == nil {
            guard let pk = schema.types[table].primaryKeyIndex else { throw .usage("\(type) has no primary key; name the object as #N") }
            _ = try parse(text, as: schema.types[table].properties[pk])  // says so when the text is not such a key
        }
        guard let key = found[id] else { throw .failed("no \(type) \(text) was ever created in \(path)") }
        return (table, key, schema.types)
    }

    static func parse(_ text: String, as property: PropertySchema) throws(CLIError) -> PersistedValue {
        let value: PersistedValue?
        switch property.type {
        case .int, .int8, .int16, .int32, .int64: value = Int64(text).map(PersistedValue.int)
        case .string, .url: value = .string(text)
        case .uuid: value = UUID(uuidString: text).map(PersistedValue.uuid)
        case .objectId: value = ObjectId(text).map(PersistedValue.objectId)
        default: value = nil
        }
        guard let value else { throw .usage("\"\(text)\" is not a \(property.type) primary key") }
        return value
    }
}
