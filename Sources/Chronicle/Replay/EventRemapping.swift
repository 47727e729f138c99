/// Translates a source journal's table and property indexes into a replay's,
/// when some schema events did not happen in the replay (their commit was
/// excluded, or they no longer applied): the types and properties defined
/// after them have other indexes there.
struct EventRemapping: Sendable {
    /// Source table → replay table; `nil` when the type does not exist in the replay.
    private var tables: [Int?] = []
    /// Per source table: source property → replay property (`nil`: not in the replay).
    private var properties: [[Int?]] = []

    /// The number of types the source has defined so far.
    var sourceTableCount: Int { tables.count }

    /// `event` with the replay's indexes, or why it cannot apply there.
    func map(_ event: Event) -> Result<Event, FoldError.Reason> {
        switch event {
        case .defineType:
            return .success(event)
        case let .addProperty(t, property):
            return table(t).map { .addProperty(table: $0, property) }
        case .changeSchema(let change):
            return map(change).map { .changeSchema($0) }
        case let .create(t, key, values):
            return table(t).flatMap { mapped in
                let map = properties[t]
                guard values.count == map.count else { return .failure(.valueCount(expected: map.count, actual: values.count)) }
                // Replay properties are the source's, in order, minus those that did not happen.
                return .success(.create(table: mapped, key: key, values: zip(values, map).compactMap { $1 == nil ? nil : $0 }))
            }
        case let .delete(t, key):
            return table(t).map { .delete(table: $0, key: key) }
        case let .set(t, key, p, value):
            return target(t, p).map { .set(table: $0.0, key: key, property: $0.1, value: value) }
        case let .listInsert(t, key, p, index, value):
            return target(t, p).map { .listInsert(table: $0.0, key: key, property: $0.1, index: index, value: value) }
        case let .listRemove(t, key, p, index):
            return target(t, p).map { .listRemove(table: $0.0, key: key, property: $0.1, index: index) }
        case let .listMove(t, key, p, from, to):
            return target(t, p).map { .listMove(table: $0.0, key: key, property: $0.1, from: from, to: to) }
        case let .listReplace(t, key, p, index, value):
            return target(t, p).map { .listReplace(table: $0.0, key: key, property: $0.1, index: index, value: value) }
        case let .setInsert(t, key, p, value):
            return target(t, p).map { .setInsert(table: $0.0, key: key, property: $0.1, value: value) }
        case let .setRemove(t, key, p, value):
            return target(t, p).map { .setRemove(table: $0.0, key: key, property: $0.1, value: value) }
        case let .mapSet(t, key, p, mapKey, value):
            return target(t, p).map { .mapSet(table: $0.0, key: key, property: $0.1, mapKey: mapKey, value: value) }
        case let .mapRemove(t, key, p, mapKey):
            return target(t, p).map { .mapRemove(table: $0.0, key: key, property: $0.1, mapKey: mapKey) }
        case let .clear(t, key, p):
            return target(t, p).map { .clear(table: $0.0, key: key, property: $0.1) }
        }
    }

    /// The replay's index of source table `source`.
    private func table(_ source: Int) -> Result<Int, FoldError.Reason> {
        guard tables.indices.contains(source), let mapped = tables[source] else { return .failure(.noSuchTable(source)) }
        return .success(mapped)
    }

    /// The replay's table and property indexes of a source property.
    private func target(_ source: Int, _ property: Int) -> Result<(Int, Int), FoldError.Reason> {
        table(source).flatMap { mapped in
            guard properties[source].indices.contains(property), let index = properties[source][property] else {
                return .failure(.noSuchProperty(table: source, property: property))
            }
            return .success((mapped, index))
        }
    }

    /// `change` with the replay's indexes.
    private func map(_ change: SchemaChange) -> Result<SchemaChange, FoldError.Reason> {
        switch change {
        case .setSchemaVersion: return .success(change)
        case let .removeProperty(t, p): return target(t, p).map { .removeProperty(table: $0.0, property: $0.1) }
        case let .renameProperty(t, p, name): return target(t, p).map { .renameProperty(table: $0.0, property: $0.1, to: name) }
        case let .changeProperty(t, p, schema): return target(t, p).map { .changeProperty(table: $0.0, property: $0.1, schema) }
        case let .renameType(t, name): return table(t).map { .renameType(table: $0, to: name) }
        case let .removeType(t): return table(t).map { .removeType(table: $0) }
        case let .changeEmbedding(t, embedded): return table(t).map { .changeEmbedding(table: $0, isEmbedded: embedded) }
        }
    }

    /// Records what a source schema event became: applied in the replay
    /// (with the replay's state after it), or not.
    mutating func record(_ event: Event, appliedIn replay: StoreState?) {
        switch event {
        case .defineType(let type):
            if let replay, let index = replay.tableIndex(named: type.name) {
                tables.append(index)
                properties.append(Array(type.properties.indices).map { Optional($0) })
            } else {
                tables.append(nil)
                properties.append(Array(repeating: nil, count: type.properties.count))
            }
        case .addProperty(let t, _):
            guard properties.indices.contains(t) else { return }
            if let replay, let mapped = tables[t] {
                properties[t].append(replay.schema[mapped].properties.count - 1)
            } else {
                properties[t].append(nil)
            }
        case .changeSchema(.removeProperty(let t, let p)):
            guard properties.indices.contains(t), properties[t].indices.contains(p) else { return }
            let removed = replay != nil ? properties[t][p] : nil
            properties[t].remove(at: p)
            if let removed { properties[t] = properties[t].map { $0.map { $0 > removed ? $0 - 1 : $0 } } }
        case .changeSchema(.removeType(let t)):
            guard tables.indices.contains(t) else { return }
            let removed = replay != nil ? tables[t] : nil
            tables.remove(at: t)
            properties.remove(at: t)
            if let removed { tables = tables.map { $0.map { $0 > removed ? $0 - 1 : $0 } } }
        default:
            break
        }
    }
}
