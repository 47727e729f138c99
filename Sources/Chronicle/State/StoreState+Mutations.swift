/// The non-throwing steps of the fold. Each runs after its event passed the
/// checks, and keeps the indexes, backlinks and change set in step.
extension StoreState {
    /// Writes `value` into `property` of the live object `key` of `table`.
    ///
    /// `leaving` and `entering` are the link targets the write removes and
    /// adds; embedded targets left without an owner are deleted. Writing the
    /// value the property holds already does nothing.
    mutating func write(_ table: Int, _ key: ObjectKey, _ property: Int, _ value: PersistedValue,
                        leaving: [ObjectKey] = [], entering: [ObjectKey] = [], changes: inout ChangeSetBuilder) {
        guard let old = tables[table].objects[key.rawValue]?[property] else { preconditionFailure("write to missing object") }
        guard old != value else { return }
        // In place: the record's values are copied only if another state version shares them.
        tables[table].objects.modifyValue(forKey: key.rawValue, default: { preconditionFailure("write to missing object") }) {
            $0[property] = value
        }
        if tables[table].secondaryIndexes[property] != nil {
            tables[table].unindex(key, value: old, property: property)
            tables[table].index(key, value: value, property: property)
        }
        changes.modified(TableKey(table: table, key: key), property: property, old: old, new: value)
        guard !leaving.isEmpty || !entering.isEmpty,
              let target = linkTable(schema[table].properties[property]) else { return }
        let link = Backlink(table: table, key: key, property: property)
        for targetKey in entering { tables[target].addBacklink(link, to: targetKey) }
        for targetKey in leaving { tables[target].removeBacklink(link, from: targetKey) }
        deleteOrphans(leaving, in: target, changes: &changes)
    }

    /// Deletes the embedded objects among `keys` of `table` that no longer have an owner.
    mutating func deleteOrphans(_ keys: [ObjectKey], in table: Int, changes: inout ChangeSetBuilder) {
        guard schema[table].isEmbedded else { return }
        for key in keys where tables[table].backlinks[key.rawValue] == nil {
            deleteObject(table, key, changes: &changes)
        }
    }

    /// Inserts a checked new object.
    mutating func createObject(_ table: Int, _ key: ObjectKey, _ values: [PersistedValue],
                               changes: inout ChangeSetBuilder) {
        createObject(table, key, values, record: ObjectRecord(values), changes: &changes)
    }

    /// Inserts a checked new object whose record, made ahead, is `record`
    /// (see ``CommitSource/takePrepared()``).
    mutating func createObject(_ table: Int, _ key: ObjectKey, record: ObjectRecord, changes: inout ChangeSetBuilder) {
        createObject(table, key, record.elements, record: record, changes: &changes)
    }

    /// Inserts a checked new object: `record` holds `values`.
    // Inlined, so that it is compiled for each kind of values: left
    // generic, it looked the type metadata up on every call.
    @inline(__always)
    mutating func createObject<Values: RandomAccessCollection>(
        _ table: Int, _ key: ObjectKey, _ values: Values, record: ObjectRecord, changes: inout ChangeSetBuilder
    ) where Values.Element == PersistedValue, Values.Index == Int {
        let fresh = key.rawValue >= tables[table].nextKey
        tables[table].objects[key.rawValue] = record
        tables[table].nextKey = max(tables[table].nextKey, key.rawValue + 1)
        tables[table].index(key, values: values)
        createdLinks(table, key, values, record: record, fresh: fresh, changes: &changes)
    }

    /// ``createObject(_:_:_:record:changes:)``, noting the object's
    /// secondary-index entries in `pending` rather than filing them (see
    /// ``PendingIndexEntries``).
    @inline(__always)
    mutating func createObject<Values: RandomAccessCollection>(
        _ table: Int, _ key: ObjectKey, _ values: Values, record: ObjectRecord, changes: inout ChangeSetBuilder,
        deferring pending: inout PendingIndexEntries
    ) where Values.Element == PersistedValue, Values.Index == Int {
        let fresh = key.rawValue >= tables[table].nextKey
        tables[table].objects[key.rawValue] = record
        tables[table].nextKey = max(tables[table].nextKey, key.rawValue + 1)
        tables[table].index(key, values: values, record: record, table: table, deferring: &pending)
        createdLinks(table, key, values, record: record, fresh: fresh, changes: &changes)
    }

    /// A new object's backlinks and change: the rest of creating it.
    @inline(__always)
    private mutating func createdLinks<Values: RandomAccessCollection>(
        _ table: Int, _ key: ObjectKey, _ values: Values, record: ObjectRecord, fresh: Bool, changes: inout ChangeSetBuilder
    ) where Values.Element == PersistedValue, Values.Index == Int {
        for property in values.indices where schema[table].properties[property].type == .object {
            guard let target = linkTable(schema[table].properties[property]) else { continue }
            let link = Backlink(table: table, key: key, property: property)
            for targetKey in values[property].linkedKeys { tables[target].addBacklink(link, to: targetKey) }
        }
        changes.created(TableKey(table: table, key: key), record: record, fresh: fresh)
    }

    /// Deletes object `key` of `table` if it exists: cascades to the embedded
    /// objects it owns, and removes every link to it from the objects that
    /// hold one (each recorded as a modification).
    mutating func deleteObject(_ table: Int, _ key: ObjectKey, changes: inout ChangeSetBuilder) {
        guard let record = tables[table].objects.removeValue(forKey: key.rawValue) else { return }
        tables[table].unindex(key, record)
        changes.deleted(TableKey(table: table, key: key), record: record)
        // Outgoing links: forget them; owned embedded objects go too.
        for (property, schema) in schema[table].properties.enumerated() {
            guard let target = linkTable(schema) else { continue }
            let targets = record[property].linkedKeys
            let link = Backlink(table: table, key: key, property: property)
            for targetKey in targets { tables[target].removeBacklink(link, from: targetKey) }
            deleteOrphans(targets, in: target, changes: &changes)
        }
        // Incoming links: remove them from their holders.
        guard let incoming = tables[table].backlinks.removeValue(forKey: key.rawValue) else { return }
        var previous: Backlink?
        for link in incoming where link != previous {
            previous = link
            guard let holder = tables[link.table].objects[link.key.rawValue] else { continue }
            write(link.table, link.key, link.property, holder[link.property].removingLinks(to: key),
                  changes: &changes)
        }
    }

    /// Appends a checked type.
    mutating func define(_ type: TypeSchema) {
        tableIndexByName[type.name] = schema.count
        schema.append(type)
        tables.append(Table(schema: type))
    }

    /// Appends a checked property; existing objects get its default value.
    mutating func addProperty(_ property: PropertySchema, to table: Int) {
        let index = schema[table].properties.count
        schema[table].properties.append(property)
        let value = property.defaultValue
        let objects = tables[table].objects
        for (key, var record) in objects {
            record.append(value)
            tables[table].objects[key] = record
        }
        tables[table].secondaryIndexes.append(Table.emptyIndex(for: property))
        if property.isPrimaryKey { tables[table].primaryKey = index }
        guard property.isPrimaryKey || tables[table].secondaryIndexes[index] != nil else { return }
        for (key, _) in objects {
            let objectKey = ObjectKey(key)
            if property.isPrimaryKey { tables[table].primaryKeyIndex[value] = objectKey }
            if tables[table].secondaryIndexes[index] != nil {
                tables[table].index(objectKey, value: value, property: index)
            }
        }
    }
}
