/// Answers "did this persisted path of this object change in this commit?"
/// by following links in the states before and after it.
enum ChangePaths {
    /// The objects a link, list, set or map value points to.
    static func targets(of value: PersistedValue) -> [ObjectKey] {
        switch value {
        case .link(let key): [key]
        case .list(let values), .set(let values): values.compactMap { if case .link(let key) = $0 { key } else { nil } }
        case .map(let entries): entries.compactMap { if case .link(let key) = $0.value { key } else { nil } }
        default: []
        }
    }

    /// The table and property index of `name` in `table`, plus the table it links to.
    static func resolve(_ name: String, table: Int, in state: StoreState) -> (property: Int, target: Int?)? {
        guard state.schema.indices.contains(table) else { return nil }
        let schema = state.schema[table]
        guard let property = schema.propertyIndex(named: name) else { return nil }
        let target = schema.properties[property].objectType.flatMap { state.tableIndex(named: $0) }
        return (property, target)
    }

    /// Whether `path`, read from object `key` of `table`, changed.
    static func changed(_ path: ArraySlice<String>, table: Int, key: ObjectKey,
                        changes: ChangeSet, old: StoreState, new: StoreState) -> Bool {
        guard let first = path.first, let (property, target) = resolve(first, table: table, in: new) else { return false }
        if changes.modification(table: table, key: key)?.changed(property) == true { return true }
        guard path.count > 1, let target else { return false }
        var linked = Set<ObjectKey>()
        for state in [old, new] {
            if let record = state.object(table: table, key: key), property < record.count {
                linked.formUnion(targets(of: record[property]))
            }
        }
        return linked.contains { changed(path.dropFirst(), table: target, key: $0, changes: changes, old: old, new: new) }
    }

    /// Every object reachable from `key` through the links of `path`'s
    /// prefixes (the objects a nested observation must watch).
    static func reachable(_ path: [String], table: Int, key: ObjectKey, in state: StoreState) -> Set<TableKey> {
        var result = Set<TableKey>()
        var frontier = [TableKey(table: table, key: key)]
        for name in path.dropLast() {
            var next: [TableKey] = []
            for object in frontier {
                guard let (property, target) = resolve(name, table: object.table, in: state), let target,
                      let record = state.object(table: object.table, key: object.key) else { continue }
                for linked in targets(of: record[property]) {
                    let entry = TableKey(table: target, key: linked)
                    if result.insert(entry).inserted { next.append(entry) }
                }
            }
            frontier = next
        }
        return result
    }
}
