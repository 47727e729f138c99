/// Validation that runs before an event touches anything, so a failed
/// event leaves the state as it was.
extension StoreState {
    typealias Reason = FoldError.Reason

    /// The live record of object `key` in `table`.
    func existing(_ table: Int, _ key: ObjectKey) throws(Reason) -> ObjectRecord {
        guard tables.indices.contains(table) else { throw .noSuchTable(table) }
        guard let record = object(table: table, key: key) else { throw .noSuchObject(table: table, key: key) }
        return record
    }

    /// The schema of `property` in `table`.
    func propertySchema(_ table: Int, _ property: Int) throws(Reason) -> PropertySchema {
        guard tables.indices.contains(table) else { throw .noSuchTable(table) }
        guard schema[table].properties.indices.contains(property) else {
            throw .noSuchProperty(table: table, property: property)
        }
        return schema[table].properties[property]
    }

    /// The table a link property points into, if its type is defined.
    func linkTable(_ property: PropertySchema) -> Int? {
        guard property.type == .object, let name = property.objectType else { return nil }
        return tableIndexByName[name]
    }

    /// Checks a whole value for `property`: its collection shape, each
    /// element's case and optionality, set uniqueness, map key order, and
    /// that links point at live objects.
    func check(_ value: PersistedValue, fits property: PropertySchema) throws(Reason) {
        switch (property.collection, value) {
        case (.none, _):
            try checkElement(value, fits: property, nullable: property.isOptional || property.type == .object)
        case (.list, .list(let elements)):
            for element in elements { try checkElement(element, fits: property, nullable: property.isOptional) }
        case (.set, .set(let elements)):
            for element in elements { try checkElement(element, fits: property, nullable: property.isOptional) }
            guard Set(elements).count == elements.count else { throw .typeMismatch(property: property.name, value: value) }
        case (.map, .map(let entries)):
            for entry in entries { try checkMapValue(entry.value, fits: property) }
            guard zip(entries, entries.dropFirst()).allSatisfy({ $0.key < $1.key }) else {
                throw .typeMismatch(property: property.name, value: value)
            }
        default:
            throw .typeMismatch(property: property.name, value: value)
        }
    }

    /// Checks a map value: `nil` is allowed for optionals and for links.
    func checkMapValue(_ value: PersistedValue, fits property: PropertySchema) throws(Reason) {
        try checkElement(value, fits: property, nullable: property.isOptional || property.type == .object)
    }

    /// Checks one scalar, link or collection element.
    func checkElement(_ value: PersistedValue, fits property: PropertySchema, nullable: Bool) throws(Reason) {
        if value.isNull {
            guard nullable else { throw .typeMismatch(property: property.name, value: value) }
            return
        }
        guard property.type.accepts(value) else { throw .typeMismatch(property: property.name, value: value) }
        guard case .link(let key) = value else { return }
        guard let target = linkTable(property) else { throw .undefinedType(property.objectType ?? "") }
        guard object(table: target, key: key) != nil else { throw .danglingLink(table: target, key: key) }
    }

    /// Checks that the embedded objects among `entering` (links about to be
    /// added through `property`) have no owner yet and are linked only once;
    /// `seen` carries the ones already claimed by the same event.
    func checkOwnership(_ entering: [ObjectKey], through property: PropertySchema,
                        seen: inout Set<TableKey>) throws(Reason) {
        guard !entering.isEmpty, let target = linkTable(property), schema[target].isEmbedded else { return }
        for key in entering {
            guard seen.insert(TableKey(table: target, key: key)).inserted,
                  tables[target].backlinks[key.rawValue] == nil
            else { throw .embeddedObjectAlreadyOwned(table: target, key: key) }
        }
    }

    /// Like ``checkOwnership(_:through:seen:)`` for one event's links.
    func checkOwnership(_ entering: [ObjectKey], through property: PropertySchema) throws(Reason) {
        var seen = Set<TableKey>()
        try checkOwnership(entering, through: property, seen: &seen)
    }

    /// Checks the properties of a type: unique names, at most one primary
    /// key (a scalar, not in an embedded type), object types named.
    func checkProperties(_ properties: [PropertySchema], ofType name: String, embedded: Bool) throws(Reason) {
        var names = Set<String>()
        for property in properties {
            guard names.insert(property.name).inserted else {
                throw .invalidSchema("\(name) has two properties named \"\(property.name)\"")
            }
            if property.type == .object && property.objectType == nil {
                throw .invalidSchema("\(name).\(property.name) links to no type")
            }
            if property.isPrimaryKey && (property.collection != .none || property.type == .object || embedded) {
                throw .invalidSchema("\(name).\(property.name) cannot be a primary key")
            }
        }
        if properties.filter(\.isPrimaryKey).count > 1 { throw .invalidSchema("\(name) has two primary keys") }
    }

    /// Checks a create event.
    // Inlined, so that it is compiled for each kind of values: left
    // generic, it looked the type metadata up on every call.
    @inline(__always)
    func checkCreate<Values: CreatedValues>(_ table: Int, _ key: ObjectKey, _ values: Values) throws(Reason) {
        guard tables.indices.contains(table) else { throw .noSuchTable(table) }
        guard key.rawValue >= 0 else { throw .invalidKey(key) }
        // A key at or past the table's next one was never used: no look-up.
        guard key.rawValue >= tables[table].nextKey || object(table: table, key: key) == nil else {
            throw .keyInUse(table: table, key: key)
        }
        try checkCreatedValues(table, values)
        if let primaryKey = tables[table].primaryKey, let other = self.key(table: table, primaryKey: values[primaryKey]) {
            throw .duplicatePrimaryKey(values[primaryKey], existing: other)
        }
    }

    /// The part of ``checkCreate(_:_:_:)`` that reads only the values and
    /// the schema: their count, and each value against its property (a
    /// link's target and ownership included). `table` must exist.
    @inline(__always)
    func checkCreatedValues<Values: CreatedValues>(_ table: Int, _ values: Values) throws(Reason) {
        guard values.count == schema[table].properties.count else {
            throw .valueCount(expected: schema[table].properties.count, actual: values.count)
        }
        var seen = Set<TableKey>()
        // Through a buffer pointer, not zip or the array's subscript: both
        // copy each PropertySchema (retaining its strings) to pass it on.
        try schema[table].properties.withUnsafeBufferPointer { properties throws(Reason) in
            for index in values.indices {
                // A non-null value of a plain scalar property that its type
                // accepts passes `check` as is: decided from the schema's
                // flags alone, without passing (and so copying) the schema.
                let type = properties[index].type
                if properties[index].collection == .none, type != .object, values.isPlainValue(at: index, of: type) {
                    continue
                }
                try check(values[index], fits: properties[index])
                if type == .object {
                    try checkOwnership(values[index].linkedKeys, through: properties[index], seen: &seen)
                }
            }
        }
    }
}

/// The values of an object being created, as ``StoreState/checkCreate(_:_:_:)``
/// reads them: an array of them, or a record made ahead
/// (``ObjectRecord/Elements``), which answers the commonest check from its
/// values' kinds without making each value.
protocol CreatedValues: RandomAccessCollection where Element == PersistedValue, Index == Int {
    /// Whether the value at `index` is not null and of a kind a plain
    /// (not collection, not link) property of `type` accepts.
    func isPlainValue(at index: Int, of type: PropertyType) -> Bool
}

extension Array: CreatedValues where Element == PersistedValue {
    func isPlainValue(at index: Int, of type: PropertyType) -> Bool { !self[index].isNull && type.accepts(self[index]) }
}

extension ContiguousArray: CreatedValues where Element == PersistedValue {
    func isPlainValue(at index: Int, of type: PropertyType) -> Bool { !self[index].isNull && type.accepts(self[index]) }
}

extension UnsafeBufferPointer: CreatedValues where Element == PersistedValue {
    func isPlainValue(at index: Int, of type: PropertyType) -> Bool { !self[index].isNull && type.accepts(self[index]) }
}

extension ObjectRecord.Elements: CreatedValues {
    func isPlainValue(at index: Int, of type: PropertyType) -> Bool {
        record.storage.tag(of: index) == RecordStorage.Tag.of(type)
    }
}

extension PersistedValue {
    /// The keys this value links to: itself, its elements or its map values.
    var linkedKeys: [ObjectKey] {
        switch self {
        case .link(let key): [key]
        case .list(let elements), .set(let elements): elements.compactMap(\.linkedKey)
        case .map(let entries): entries.compactMap(\.value.linkedKey)
        default: []
        }
    }

    /// The key of a ``link(_:)``.
    var linkedKey: ObjectKey? { if case .link(let key) = self { key } else { nil } }

    /// This value with every link to `key` removed: a to-one link becomes
    /// `nil`, list and set elements leave, map values become `nil`.
    func removingLinks(to key: ObjectKey) -> PersistedValue {
        let target = PersistedValue.link(key)
        switch self {
        case target: return .null
        case .list(let elements): return .list(elements.filter { $0 != target })
        case .set(let elements): return .set(elements.filter { $0 != target })
        case .map(let entries): return .map(entries.map { $0.value == target ? MapEntry(key: $0.key, value: .null) : $0 })
        default: return self
        }
    }
}
