import Chronicle

/// Folds commits and renders each event against the state just before it,
/// so `set` events show the value they replaced.
struct EventDescriber {
    private(set) var state: StoreState

    init(state: StoreState) { self.state = state }

    /// The events of `commit`, one line each, in order; the state moves past
    /// the commit. Also returns the commit's change set.
    @discardableResult
    mutating func describe(_ commit: Commit) -> (lines: [String], changes: ChangeSet) {
        var lines: [String] = []
        var changes = ChangeSetBuilder()
        for event in commit.events {
            lines.append(describe(event))
            // A journal that folded once folds again; a failure leaves the
            // state as it was, and the next lines show the values it has.
            try? state.apply(event, changes: &changes)
        }
        return (lines, changes.build(version: commit.version))
    }

    /// One event, e.g. `set Person#1.firstName: "Ann" → "Bob"`.
    func describe(_ event: Event) -> String {
        let names = SchemaNames(schema: state.schema)
        func current(_ table: Int, _ key: ObjectKey, _ property: Int) -> PersistedValue? {
            guard let record = state.object(table: table, key: key), property < record.count else { return nil }
            return record[property]
        }
        func value(_ value: PersistedValue?, _ table: Int, _ property: Int) -> String {
            value.map { names.value($0, of: names.property(table, property)) } ?? "∅"
        }
        func elements(_ table: Int, _ key: ObjectKey, _ property: Int) -> [PersistedValue] {
            switch current(table, key, property) {
            case .list(let values)?, .set(let values)?: values
            default: []
            }
        }
        switch event {
        case .defineType(let type):
            let properties = type.properties.map { property in
                "\(property.name): \(SchemaNames.typeDescription(property))\(property.isPrimaryKey ? " (primary key)" : "")"
            }
            return "define \(type.isEmbedded ? "embedded " : "")\(type.name)(\(properties.joined(separator: ", ")))"
        case let .addProperty(table, property):
            return "add property \(names.typeName(table)).\(property.name): \(SchemaNames.typeDescription(property))"
        case .changeSchema(let change):
            return "schema: \(change.summary(in: state.schema))"
        case let .create(table, key, values):
            let properties = schemaProperties(table)
            let members = values.enumerated().map { index, element in
                "\(index < properties.count ? properties[index].name : "property\(index)"): \(value(element, table, index))"
            }
            return "create \(names.object(table, key)) {\(members.joined(separator: ", "))}"
        case let .set(table, key, property, new):
            return "set \(names.path(table, key, property)): \(value(current(table, key, property), table, property)) → \(value(new, table, property))"
        case let .delete(table, key):
            return "delete \(names.object(table, key))"
        case let .listInsert(table, key, property, index, new):
            return "insert \(names.path(table, key, property))[\(index)]: \(value(new, table, property))"
        case let .listRemove(table, key, property, index):
            let list = elements(table, key, property)
            let old = list.indices.contains(index) ? " (was \(value(list[index], table, property)))" : ""
            return "remove \(names.path(table, key, property))[\(index)]\(old)"
        case let .listMove(table, key, property, from, to):
            return "move \(names.path(table, key, property))[\(from)] → [\(to)]"
        case let .listReplace(table, key, property, index, new):
            let list = elements(table, key, property)
            let old = list.indices.contains(index) ? list[index] : nil
            return "replace \(names.path(table, key, property))[\(index)]: \(value(old, table, property)) → \(value(new, table, property))"
        case let .setInsert(table, key, property, new):
            return "insert \(names.path(table, key, property)): \(value(new, table, property))"
        case let .setRemove(table, key, property, old):
            return "remove \(names.path(table, key, property)): \(value(old, table, property))"
        case let .mapSet(table, key, property, mapKey, new):
            var old: PersistedValue?
            if case .map(let entries)? = current(table, key, property) { old = entries.first { $0.key == mapKey }?.value }
            return "set \(names.path(table, key, property))[\(ValueText.string(mapKey))]: \(value(old, table, property)) → \(value(new, table, property))"
        case let .mapRemove(table, key, property, mapKey):
            return "remove \(names.path(table, key, property))[\(ValueText.string(mapKey))]"
        case let .clear(table, key, property):
            return "clear \(names.path(table, key, property))"
        }
    }

    private func schemaProperties(_ table: Int) -> [PropertySchema] {
        state.schema.indices.contains(table) ? state.schema[table].properties : []
    }
}
