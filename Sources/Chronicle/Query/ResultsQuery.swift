import Foundation

/// A sort key: a persisted property path and a direction.
struct SortKey: Sendable, Hashable {
    var path: [String]
    var ascending: Bool
}

/// Wraps a `Predicate` so that queries can hold it as a `Sendable` value.
struct PredicateBox: @unchecked Sendable {
    // Safety: Foundation's Predicate is an immutable value tree; evaluating
    // it has no side effects.
    let evaluate: (ObjectBase) -> Bool
    init<Element>(_ predicate: Predicate<Element>) {
        evaluate = { object in
            guard let element = object as? Element ?? (Element.self as? _ObjectProjecting.Type)?._project(object) as? Element else { return false }
            return (try? predicate.evaluate(element)) ?? false
        }
    }
}

/// What a ``Results`` selects: filters, then sort keys.
struct ResultsQuery: Sendable {
    enum Filter: Sendable {
        case predicate(PredicateBox)
    }
    var filters: [Filter] = []
    var sort: [SortKey] = []

    static func persistedPath(_ keyPath: AnyKeyPath, of type: Any.Type) -> [String] {
        do { return try KeyPathMapping.record(keyPath).path } catch {
            preconditionFailure("Chronicle: \(error)")
        }
    }

    func evaluate(in state: StoreState, table: TableBinding, frozen: StoreState?) -> [ObjectKey] {
        var keys: [ObjectKey] = []
        for (key, _) in state.objects(table: table.index) {
            if filters.isEmpty {
                keys.append(key)
                continue
            }
            let object = table.metadata.type.init()
            _ = object.binding.storeIfNil(ObjectBinding(.managed(table, key, frozen: frozen ?? state)))
            if filters.allSatisfy({ if case .predicate(let box) = $0 { box.evaluate(object) } else { true } }) {
                keys.append(key)
            }
        }
        if !sort.isEmpty {
            let sortValues = keys.map { key in sort.map { StateRow(state: state, table: table.index, key: key).value(at: $0.path) ?? .null } }
            let order = keys.indices.sorted { a, b in
                for (index, sortKey) in sort.enumerated() {
                    let l = sortValues[a][index], r = sortValues[b][index]
                    if l == r { continue }
                    return PersistedValue.ordered(l, r) == sortKey.ascending
                }
                return a < b
            }
            keys = order.map { keys[$0] }
        }
        return keys
    }
}

/// Reads property paths of one object in one state, following links.
struct StateRow {
    let state: StoreState
    let table: Int
    let key: ObjectKey

    func value(at path: [String]) -> PersistedValue? {
        var table = table
        var key = key
        for (depth, name) in path.enumerated() {
            let schema = state.schema[table]
            guard let property = schema.propertyIndex(named: name),
                  let record = state.object(table: table, key: key) else { return nil }
            let value = record.values[property]
            if depth == path.count - 1 { return value }
            guard case .link(let next) = value, let target = schema.properties[property].objectType,
                  let nextTable = state.tableIndex(named: target) else { return nil }
            table = nextTable
            key = next
        }
        return nil
    }
}
