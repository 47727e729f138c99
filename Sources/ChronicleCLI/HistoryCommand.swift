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
    /// the primary-key value of the last object of the type created with it.
    static func find(_ journal: Journal, path: String, type: String, object: Invocation.ObjectName) throws(CLIError) -> (Int, ObjectKey, [TypeSchema]) {
        let text = object.text
        var schema = SchemaTracker()
        var found: ObjectKey?
        var table: Int?
        var primaryKey: PersistedValue?
        let direct = object.key
        try JournalInput.forEach(journal, path: path, what: "searching") { (commit) throws(CLIError) in
            for event in commit.events {
                schema.apply(Commit(version: 0, timestamp: commit.timestamp, events: [event]))
                if table == nil, let index = schema.types.firstIndex(where: { $0.name == type }) {
                    table = index
                    if direct == nil {
                        guard let pk = schema.types[index].primaryKeyIndex else {
                            throw .usage("\(type) has no primary key; name the object as #N")
                        }
                        primaryKey = try parse(text, as: schema.types[index].properties[pk])
                    }
                }
                guard let table, case let .create(t, key, values) = event, t == table else { continue }
                if let direct, key.rawValue == direct { found = key }
                if let primaryKey, let pk = schema.types[table].primaryKeyIndex, values.indices.contains(pk), values[pk] == primaryKey {
                    found = key
                }
            }
        }
        guard let table else { throw .usage("the journal has no type \"\(type)\"") }
        guard let found else { throw .failed("no \(type) \(text) was ever created in \(path)") }
        return (table, found, schema.types)
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
