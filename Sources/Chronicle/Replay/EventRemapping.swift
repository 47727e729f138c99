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
        func table(_ source: Int) -> Result<Int, FoldError.Reason> {
            guard tables.indices.contains(source), let mapped = tables[source] else { return .failure(.noSuchTable(source)) }
            return .success(mapped)
        }
        func target(_ source: Int, _ property: Int) -> Result<(Int, Int), FoldError.Reason> {
            table(source).flatMap { mapped in
                guard properties[source].indices.contains(property), let index = properties[source][property] else {
                    return .failure(.noSuchProperty(table: source, property: property))
                }
                return .success((mapped, index))
            }
        }
        switch event {
        case .defineType:
            return .success(event)
        case let .addProperty(t, property):
            return table(t).map { .addProperty(table: $0, property) }
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
        default:
            break
        }
    }
}
