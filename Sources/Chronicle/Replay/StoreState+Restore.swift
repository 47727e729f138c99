/// Rebuilding a state from its stored parts (a checkpoint file): the schema,
/// the objects and the next keys. Indexes and backlinks are derived, so they
/// are recomputed, and the result is checked like the fold checks events.
extension StoreState {
    /// Defines every type of a checkpoint at once (types may link to types
    /// defined after them once properties were added), then checks them.
    mutating func restoreSchema(_ types: [TypeSchema]) throws(Reason) {
        for type in types {
            guard tableIndexByName[type.name] == nil else { throw .duplicateType(type.name) }
            define(type)
        }
        for type in types {
            try checkProperties(type.properties, ofType: type.name, embedded: type.isEmbedded)
        }
    }

    /// Sets the next key of `table`; it may only grow.
    mutating func restoreNextKey(_ nextKey: Int64, table: Int) throws(Reason) {
        guard tables.indices.contains(table) else { throw .noSuchTable(table) }
        guard nextKey >= tables[table].nextKey else { throw .invalidKey(ObjectKey(nextKey)) }
        tables[table].nextKey = nextKey
    }

    /// Inserts an object, checking its values but for links (their targets
    /// may come later in the file; see ``checkRestored()``), keeping the
    /// indexes and backlinks in step.
    mutating func restoreObject(table: Int, key: ObjectKey, values: ContiguousArray<PersistedValue>) throws(Reason) {
        guard tables.indices.contains(table) else { throw .noSuchTable(table) }
        let count = schema[table].properties.count
        guard values.count == count else { throw .valueCount(expected: count, actual: values.count) }
        guard key.rawValue >= 0, key.rawValue < tables[table].nextKey else { throw .invalidKey(key) }
        guard !tables[table].objects.contains(key.rawValue) else { throw .keyInUse(table: table, key: key) }
        // Indexes into the schema, not a copy of its properties: copying one
        // retains its strings, once per property per object of the checkpoint.
        for index in values.indices where schema[table].properties[index].type != .object {
            try check(values[index], fits: schema[table].properties[index])
        }
        let record = ObjectRecord(values: values)
        if let primaryKey = tables[table].primaryKey, let other = tables[table].primaryKeyIndex[values[primaryKey]] {
            throw .duplicatePrimaryKey(values[primaryKey], existing: other)
        }
        tables[table].objects[key.rawValue] = record
        tables[table].index(key, record)
        for property in values.indices where schema[table].properties[property].type == .object {
            guard let target = linkTable(schema[table].properties[property]) else {
                throw .undefinedType(schema[table].properties[property].objectType ?? "")
            }
            let link = Backlink(table: table, key: key, property: property)
            for targetKey in values[property].linkedKeys { tables[target].addBacklink(link, to: targetKey) }
        }
    }

    /// Finishes checking a restored state as the fold would have (values
    /// other than links were checked as they were restored): every link
    /// value fits its property and points at a live object, and embedded
    /// objects have at most one owner. O(objects of the types that have
    /// links or are embedded).
    func checkRestored() throws(Reason) {
        for (table, type) in schema.enumerated() {
            // Every link target must be a live object (links are filed under their targets' table).
            for (target, _) in tables[table].backlinks where !tables[table].objects.contains(target) {
                throw .danglingLink(table: table, key: ObjectKey(target))
            }
            let links = type.properties.indices.filter { type.properties[$0].type == .object }
            guard !links.isEmpty || type.isEmbedded else { continue }
            for (key, record) in tables[table].objects {
                for property in links {
                    try check(record.values[property], fits: type.properties[property])
                }
                if type.isEmbedded {
                    let owners = tables[table].backlinks[key]?.count ?? 0
                    guard owners <= 1 else { throw .embeddedObjectAlreadyOwned(table: table, key: ObjectKey(key)) }
                }
            }
        }
    }
}
