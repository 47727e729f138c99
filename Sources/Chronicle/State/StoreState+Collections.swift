/// Folding list, set and map edits.
extension StoreState {
    /// The schema and current value of a collection property of kind `kind`.
    private func collection(_ table: Int, _ key: ObjectKey, _ property: Int,
                            _ kind: CollectionKind) throws(Reason) -> (PropertySchema, PersistedValue) {
        let record = try existing(table, key)
        let schema = try propertySchema(table, property)
        guard schema.collection == kind else { throw .wrongCollection(property: schema.name, expected: kind) }
        return (schema, record[property])
    }

    /// The schema and elements of a list or set property.
    private func elements(_ table: Int, _ key: ObjectKey, _ property: Int,
                          _ kind: CollectionKind) throws(Reason) -> (PropertySchema, [PersistedValue]) {
        let (schema, value) = try collection(table, key, property, kind)
        return (schema, value.elements)
    }

    private static func checkIndex(_ index: Int, _ range: Range<Int>) throws(Reason) {
        guard range.contains(index) else { throw .indexOutOfRange(index: index, count: range.upperBound) }
    }

    mutating func foldListEvent(_ event: Event, changes: inout ChangeSetBuilder) throws(Reason) {
        switch event {
        case let .listInsert(table, key, property, index, value):
            var (schema, elements) = try elements(table, key, property, .list)
            try Self.checkIndex(index, 0..<(elements.count + 1))
            try checkElement(value, fits: schema, nullable: schema.isOptional)
            try checkOwnership(value.linkedKeys, through: schema)
            elements.insert(value, at: index)
            write(table, key, property, .list(elements), entering: value.linkedKeys, changes: &changes)
        case let .listRemove(table, key, property, index):
            var (_, elements) = try elements(table, key, property, .list)
            try Self.checkIndex(index, elements.indices)
            let removed = elements.remove(at: index)
            write(table, key, property, .list(elements), leaving: removed.linkedKeys, changes: &changes)
        case let .listMove(table, key, property, from, to):
            var (_, elements) = try elements(table, key, property, .list)
            try Self.checkIndex(from, elements.indices)
            try Self.checkIndex(to, elements.indices)
            elements.insert(elements.remove(at: from), at: to)
            write(table, key, property, .list(elements), changes: &changes)
        case let .listReplace(table, key, property, index, value):
            var (schema, elements) = try elements(table, key, property, .list)
            try Self.checkIndex(index, elements.indices)
            try checkElement(value, fits: schema, nullable: schema.isOptional)
            let old = elements[index]
            guard old != value else { return }
            try checkOwnership(value.linkedKeys, through: schema)
            elements[index] = value
            write(table, key, property, .list(elements), leaving: old.linkedKeys, entering: value.linkedKeys,
                  changes: &changes)
        default:
            preconditionFailure("not a list event")
        }
    }

    mutating func foldSetOrMapEvent(_ event: Event, changes: inout ChangeSetBuilder) throws(Reason) {
        switch event {
        case let .setInsert(table, key, property, value):
            var (schema, elements) = try elements(table, key, property, .set)
            try checkElement(value, fits: schema, nullable: schema.isOptional)
            guard !elements.contains(value) else { return }
            try checkOwnership(value.linkedKeys, through: schema)
            elements.append(value)
            write(table, key, property, .set(elements), entering: value.linkedKeys, changes: &changes)
        case let .setRemove(table, key, property, value):
            var (_, elements) = try elements(table, key, property, .set)
            guard let index = elements.firstIndex(of: value) else { return }
            elements.remove(at: index)
            write(table, key, property, .set(elements), leaving: value.linkedKeys, changes: &changes)
        case let .mapSet(table, key, property, mapKey, value):
            var (schema, entries) = try mapEntries(table, key, property)
            try checkMapValue(value, fits: schema)
            let index = entries.firstIndex { $0.key >= mapKey } ?? entries.endIndex
            let old = index < entries.endIndex && entries[index].key == mapKey ? entries[index].value : nil
            guard old != value else { return }
            try checkOwnership(value.linkedKeys, through: schema)
            if old == nil {
                entries.insert(MapEntry(key: mapKey, value: value), at: index)
            } else {
                entries[index].value = value
            }
            write(table, key, property, .map(entries), leaving: old?.linkedKeys ?? [], entering: value.linkedKeys,
                  changes: &changes)
        case let .mapRemove(table, key, property, mapKey):
            var (_, entries) = try mapEntries(table, key, property)
            guard let index = entries.firstIndex(where: { $0.key == mapKey }) else { return }
            let old = entries.remove(at: index).value
            write(table, key, property, .map(entries), leaving: old.linkedKeys, changes: &changes)
        case let .clear(table, key, property):
            let record = try existing(table, key)
            let schema = try propertySchema(table, property)
            guard schema.collection != .none else { throw .notACollection(property: schema.name) }
            let old = record[property]
            write(table, key, property, schema.defaultValue, leaving: old.linkedKeys, changes: &changes)
        default:
            preconditionFailure("not a set or map event")
        }
    }

    private func mapEntries(_ table: Int, _ key: ObjectKey, _ property: Int) throws(Reason) -> (PropertySchema, [MapEntry]) {
        let (schema, value) = try collection(table, key, property, .map)
        guard case .map(let entries) = value else { return (schema, []) }
        return (schema, entries)
    }
}

extension PersistedValue {
    /// The elements of a list or set; empty for anything else.
    var elements: [PersistedValue] {
        switch self {
        case .list(let elements), .set(let elements): elements
        default: []
        }
    }
}
