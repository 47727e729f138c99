import Foundation

/// What a ``Results`` selects: its filters and its sort order.
struct ResultsQuery<Element: _ObjectProjecting>: Sendable {
    /// One level of the sort order.
    enum SortTerm: @unchecked Sendable {
        // Safety: the closure applies an immutable key path; it has no state.
        /// By a persisted property: compared on the stored values.
        case persisted(SortKey)
        /// By a computed value (a transformed projected property): compared
        /// on the values Swift computes per object.
        case computed(ascending: Bool, compare: (Element, Element) -> ComparisonResult)
    }

    var filters: [Query<Element>] = []
    var sort: [SortTerm] = []
    /// Paths whose combined values must be distinct; the first object of
    /// each combination, in order, is kept.
    var distinct: [PropertyPath] = []

    /// The resolver queries use: key paths on model classes and projections
    /// map to persisted paths through the key-path recorder.
    static func resolve(_ keyPath: AnyKeyPath) throws -> PropertyPath? {
        guard let recorded = try? KeyPathMapping.record(keyPath) else { return nil }
        guard recorded.isDirect else {
            throw ComputedKeyPath(dependencies: recorded.dependencies.map { PropertyPath($0) })
        }
        return PropertyPath(recorded.path)
    }

    /// Every persisted path the query reads.
    var referencedPaths: Set<PropertyPath> {
        var paths = Set(filters.flatMap(\.referencedPaths))
        for term in sort { if case .persisted(let key) = term { paths.insert(key.path) } }
        paths.formUnion(distinct)
        return paths
    }

    // MARK: Evaluation

    /// A query's evaluation so far: the matching keys found, and where to
    /// resume scanning. Sorted and index-narrowed queries are always complete.
    struct Evaluation: Sendable {
        var keys: [ObjectKey] = []
        var resumeKey = ObjectKey(0)
        var isComplete = false
    }

    /// The keys of the matching objects of `table`, in order, evaluating
    /// until `needed` keys are known (or all of them).
    ///
    /// An unsorted scan stops as soon as it has `needed` matches and can
    /// resume later: reading the first ten matches of a million examines
    /// only as many objects as it takes to find ten. An equality on an
    /// indexed property or the primary key narrows the candidates through
    /// the index instead of scanning the table.
    ///
    /// - Complexity: O(*n*) objects examined for a full scan, O(*k*) for an
    ///   index look-up with *k* candidates; plus O(*m* log *m*) to sort *m* matches.
    func evaluate(in state: StoreState, table: TableBinding, frozen: StoreState?,
                  continuing previous: Evaluation = Evaluation(), needed: Int = .max) -> Evaluation {
        if previous.isComplete || previous.keys.count >= needed { return previous }
        let probe = ObjectProbe<Element>(table: table, frozen: frozen ?? state)
        func matches(_ key: ObjectKey) -> Bool {
            EvaluationCounter.current?.count()
            let row = StateRow(state: state, table: table.index, key: key)
            return filters.allSatisfy { $0.matches(row, object: { probe.element(key) }) }
        }
        if let indexed = indexCandidates(in: state, table: table) {
            let keys = indexed.filter(matches)
            return Evaluation(keys: distinctKeys(sort.isEmpty ? keys : sorted(keys, state: state, probe: probe), state: state, table: table),
                              isComplete: true)
        }
        if !sort.isEmpty || !distinct.isEmpty {
            let keys = Array(state.objects(table: table.index).lazy.map(\.key).filter(matches))
            return Evaluation(keys: distinctKeys(sort.isEmpty ? keys : sorted(keys, state: state, probe: probe), state: state, table: table),
                              isComplete: true)
        }
        var evaluation = previous
        for (key, _) in state.objects(table: table.index, from: previous.resumeKey) {
            evaluation.resumeKey = ObjectKey(key.rawValue + 1)
            if filters.isEmpty || matches(key) {
                evaluation.keys.append(key)
                if evaluation.keys.count >= needed { return evaluation }
            }
        }
        evaluation.isComplete = true
        return evaluation
    }

    private func distinctKeys(_ keys: [ObjectKey], state: StoreState, table: TableBinding) -> [ObjectKey] {
        guard !distinct.isEmpty else { return keys }
        var seen = Set<[PersistedValue]>()
        return keys.filter { key in
            let row = StateRow(state: state, table: table.index, key: key)
            return seen.insert(distinct.map { row.value(at: $0) ?? .null }).inserted
        }
    }

    private func indexCandidates(in state: StoreState, table: TableBinding) -> [ObjectKey]? {
        for filter in filters {
            if let keys = IndexPlanner.candidates(for: filter.node, table: table.index, in: state) { return keys }
        }
        return nil
    }

    private func sorted(_ keys: [ObjectKey], state: StoreState, probe: ObjectProbe<Element>) -> [ObjectKey] {
        let rows = keys.map { StateRow(state: state, table: probe.table.index, key: $0) }
        var elements: [Element?] = Array(repeating: nil, count: keys.count)
        func element(_ index: Int) -> Element {
            if let cached = elements[index] { return cached }
            let made = probe.element(keys[index])
            elements[index] = made
            return made
        }
        let order = keys.indices.sorted { a, b in
            for term in sort {
                switch term {
                case .persisted(let key):
                    if SortKey.areInIncreasingOrder(rows[a], rows[b], by: [key]) { return true }
                    if SortKey.areInIncreasingOrder(rows[b], rows[a], by: [key]) { return false }
                case .computed(let ascending, let compare):
                    switch compare(element(a), element(b)) {
                    case .orderedAscending: return ascending
                    case .orderedDescending: return !ascending
                    case .orderedSame: continue
                    }
                }
            }
            return a < b
        }
        return order.map { keys[$0] }
    }
}

/// Builds managed elements for predicates and computed sorts.
struct ObjectProbe<Element: _ObjectProjecting> {
    let table: TableBinding
    let frozen: StoreState

    func element(_ key: ObjectKey) -> Element {
        Element._project(table.store.handle(table.metadata.type, table: table, key: key, frozen: frozen))
    }
}

/// Reads property paths of one object in one state, following links and
/// embedded objects.
struct StateRow: QueryRow {
    let state: StoreState
    let table: Int
    let key: ObjectKey

    /// - Complexity: O(path length × log *n*).
    func value(at path: PropertyPath) -> PersistedValue? {
        var table = table
        var key = key
        for (depth, name) in path.components.enumerated() {
            guard let (property, target) = ChangePaths.resolve(name, table: table, in: state),
                  let record = state.object(table: table, key: key) else { return nil }
            let value = record.values[property]
            if depth == path.components.count - 1 { return resolvedLinks(value, target: target) }
            guard case .link(let next) = value, let target else { return nil }
            table = target
            key = next
        }
        return nil
    }

    /// A link to a deleted object reads as nil.
    private func resolvedLinks(_ value: PersistedValue, target: Int?) -> PersistedValue {
        if case .link(let linked) = value, let target, !state.contains(table: target, key: linked) { return .null }
        return value
    }
}

/// Counts the objects a query examines, for the tests that check laziness
/// and index use. Set it for a task with `EvaluationCounter.$current.withValue`.
final class EvaluationCounter: @unchecked Sendable {
    // Safety: incremented only by the task that installed it (queries
    // evaluate synchronously on the calling task).
    private(set) var examined = 0
    @TaskLocal static var current: EvaluationCounter?
    func count() { examined += 1 }
}
