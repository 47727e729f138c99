extension StoreState {
    /// Every way this state disagrees with itself: indexes recomputed from
    /// the objects must equal the maintained ones (primary-key, secondary,
    /// backlinks), every value must fit its property and link to a live
    /// object, embedded objects have at most one owner, and counts match.
    /// Also traps (via the maps' own checks) if a trie is malformed. O(size
    /// of the state); for tests.
    func _invariantViolations() -> [String] {
        var problems: [String] = []
        if tables.count != schema.count { problems.append("\(tables.count) tables for \(schema.count) types") }
        for (index, type) in schema.enumerated() where tableIndexByName[type.name] != index {
            problems.append("name index misses \(type.name)")
        }
        if tableIndexByName.count != schema.count { problems.append("name index has extra names") }
        var expectedBacklinks: [TableKey: [Backlink]] = [:]
        for (table, type) in zip(tables.indices, schema) {
            let storage = tables[table]
            storage.objects._checkInvariants()
            storage.primaryKeyIndex._checkInvariants()
            storage.backlinks._checkInvariants()
            if storage.primaryKey != type.primaryKeyIndex { problems.append("\(type.name): primary key property") }
            if let last = storage.objects.lastKey, last >= storage.nextKey { problems.append("\(type.name): nextKey") }
            var secondary: [Int: [PersistedValue: [ObjectKey]]] = [:]
            for (property, schema) in type.properties.enumerated() where Table.emptyIndex(for: schema) != nil {
                secondary[property] = [:]
            }
            for (rawKey, record) in storage.objects {
                let key = ObjectKey(rawKey)
                record._checkInvariants()
                guard record.count == type.properties.count else {
                    problems.append("\(type.name) \(key): \(record.count) values")
                    continue
                }
                for (property, schema) in type.properties.enumerated() {
                    let value = record[property]
                    do { try check(value, fits: schema) } catch {
                        problems.append("\(type.name) \(key).\(schema.name): \(error)")
                    }
                    secondary[property]?[value, default: []].append(key)
                    if let target = linkTable(schema) {
                        for targetKey in value.linkedKeys {
                            expectedBacklinks[TableKey(table: target, key: targetKey), default: []]
                                .append(Backlink(table: table, key: key, property: property))
                        }
                    }
                }
                if let primaryKey = storage.primaryKey, storage.primaryKeyIndex[record[primaryKey]] != key {
                    problems.append("\(type.name) \(key): not in the primary-key index")
                }
            }
            if storage.primaryKey != nil && storage.primaryKeyIndex.count != storage.objects.count {
                problems.append("\(type.name): primary-key index has \(storage.primaryKeyIndex.count) entries")
            }
            if storage.secondaryIndexes.count != type.properties.count {
                problems.append("\(type.name): \(storage.secondaryIndexes.count) index slots")
            }
            for (property, index) in storage.secondaryIndexes.enumerated() {
                index?._checkInvariants()
                index?.forEach { $0.value._checkInvariants() }
                let actual = index.map { Dictionary(uniqueKeysWithValues: $0.map { ($0.key, $0.value.elements) }) }
                if actual != secondary[property] { problems.append("\(type.name): index of property \(property)") }
            }
        }
        var actualBacklinks: [TableKey: [Backlink]] = [:]
        for (table, storage) in tables.enumerated() {
            for (key, links) in storage.backlinks { 
                links._checkInvariants()
                actualBacklinks[TableKey(table: table, key: ObjectKey(key))] = links.elements
            }
        }
        if actualBacklinks != expectedBacklinks.mapValues({ $0.sorted() }) { problems.append("backlinks differ") }
        for (target, links) in actualBacklinks where schema[target.table].isEmbedded && links.count > 1 {
            problems.append("embedded \(target) has \(links.count) owners")
        }
        return problems
    }

    /// Traps if ``_invariantViolations()`` finds anything.
    func _checkInvariants() {
        let problems = _invariantViolations()
        precondition(problems.isEmpty, problems.joined(separator: "; "))
    }
}
