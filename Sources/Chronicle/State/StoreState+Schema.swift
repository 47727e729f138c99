/// The fold of ``SchemaChange`` events: a migration's schema changes.
extension StoreState {
    /// Folds one schema change. Checked completely first: on error the
    /// state is unchanged.
    ///
    /// - Complexity: renaming a property or type and setting the schema
    ///   version are O(types); the other changes rebuild every table,
    ///   O(n log n) in the number of objects (a migration runs once).
    mutating func fold(_ change: SchemaChange, changes: inout ChangeSetBuilder) throws(Reason) {
        changes.schemaChanged = true
        switch change {
        case .setSchemaVersion(let version):
            schemaVersion = version
        case let .renameProperty(table, property, name):
            _ = try propertySchema(table, property)
            var renamed = schema[table].properties
            renamed[property].name = name
            try checkProperties(renamed, ofType: schema[table].name, embedded: schema[table].isEmbedded)
            schema[table].properties = renamed
        case let .renameType(table, name):
            guard tables.indices.contains(table) else { throw .noSuchTable(table) }
            guard tableIndexByName[name] == nil else { throw .duplicateType(name) }
            let old = schema[table].name
            for index in schema.indices {
                for property in schema[index].properties.indices where schema[index].properties[property].objectType == old {
                    schema[index].properties[property].objectType = name
                }
            }
            schema[table].name = name
            tableIndexByName[old] = nil
            tableIndexByName[name] = table
        case let .removeProperty(table, property):
            _ = try propertySchema(table, property)
            var newSchema = schema
            newSchema[table].properties.remove(at: property)
            rebuild(newSchema) { index, _, values in
                guard index == table else { return values }
                var values = values
                values.remove(at: property)
                return values
            }
        case let .changeProperty(table, property, declared):
            try changeProperty(table, property, declared)
        case .removeType(let table):
            guard tables.indices.contains(table) else { throw .noSuchTable(table) }
            let name = schema[table].name
            for (index, type) in schema.enumerated() where index != table {
                if let link = type.properties.first(where: { $0.objectType == name }) {
                    throw .invalidSchema("\(name) cannot be removed: \(type.name).\(link.name) links to it")
                }
            }
            var newSchema = schema
            newSchema.remove(at: table)
            rebuild(newSchema, removing: table) { _, _, values in values }
        case let .changeEmbedding(table, isEmbedded):
            guard tables.indices.contains(table) else { throw .noSuchTable(table) }
            try checkProperties(schema[table].properties, ofType: schema[table].name, embedded: isEmbedded)
            guard isEmbedded, !schema[table].isEmbedded else {
                schema[table].isEmbedded = isEmbedded
                return
            }
            // An embedded object has exactly one owner: one linked more
            // often cannot become embedded; one never linked is deleted
            // (nothing could ever reach it).
            var orphans: [ObjectKey] = []
            for (key, _) in objects(table: table) {
                let owners = backlinks(table: table, key: key).count
                if owners > 1 { throw .embeddedObjectAlreadyOwned(table: table, key: key) }
                if owners == 0 { orphans.append(key) }
            }
            for key in orphans { deleteObject(table, key, changes: &changes) }
            schema[table].isEmbedded = true
        }
    }

    /// Redeclares a property: values that fit are kept, others become the
    /// new declaration's default; a new primary key must be unique.
    private mutating func changeProperty(_ table: Int, _ property: Int, _ declared: PropertySchema) throws(Reason) {
        let old = try propertySchema(table, property)
        guard declared.name == old.name else {
            throw .invalidSchema("a changed property keeps its name (\(old.name), not \(declared.name)); rename it first")
        }
        var newSchema = schema
        newSchema[table].properties[property] = declared
        try checkProperties(newSchema[table].properties, ofType: schema[table].name, embedded: schema[table].isEmbedded)
        if declared.type == .object, let target = declared.objectType, tableIndexByName[target] == nil {
            throw .undefinedType(target)
        }
        let keepsLinks = old.type == .object && declared.type == .object && old.objectType == declared.objectType
        var converted: [Int64: PersistedValue] = [:]
        var primaryKeys: [PersistedValue: ObjectKey] = [:]
        for (key, record) in objects(table: table) {
            var value = record[property]
            if (old.type == .object || declared.type == .object) && !keepsLinks {
                value = declared.defaultValue
            } else if (try? check(value, fits: declared)) == nil {
                value = declared.defaultValue
            }
            if declared.isPrimaryKey, let existing = primaryKeys.updateValue(key, forKey: value) {
                throw .duplicatePrimaryKey(value, existing: existing)
            }
            converted[key.rawValue] = value
        }
        rebuild(newSchema) { index, key, values in
            guard index == table, let value = converted[key] else { return values }
            var values = values
            values[property] = value
            return values
        }
    }

    /// Replaces every table with one of `newSchema` holding the same
    /// objects, their values passed through `transform` (given the old
    /// table index and the object's key); the table at `removed`, if any, is dropped and the
    /// later ones move down. Indexes and backlinks are built anew.
    private mutating func rebuild(_ newSchema: [TypeSchema], removing removed: Int? = nil,
                                  _ transform: (Int, Int64, ContiguousArray<PersistedValue>) -> ContiguousArray<PersistedValue>) {
        var next = StoreState()
        next.version = version
        next.schemaVersion = schemaVersion
        for type in newSchema { next.define(type) }
        var unrecorded = ChangeSetBuilder(recording: false)
        for (index, table) in tables.enumerated() where index != removed {
            let target = removed.map { index > $0 ? index - 1 : index } ?? index
            next.tables[target].nextKey = table.nextKey
            for (key, record) in table.objects {
                next.createObject(target, ObjectKey(key), Array(transform(index, key, record.values)), changes: &unrecorded)
            }
        }
        self = next
    }
}
