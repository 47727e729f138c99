import Foundation
import Synchronization

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
        var evaluation = previous
        evaluate(in: state, table: table, frozen: frozen, extending: &evaluation, needed: needed)
        return evaluation
    }

    /// Extends `evaluation` in place until it holds `needed` keys or is
    /// complete. In place, so that resuming a long evaluation appends to its
    /// keys instead of copying them (an iterator resumes every 64 elements:
    /// copying made iterating n results O(n²)).
    func evaluate(in state: StoreState, table: TableBinding, frozen: StoreState?,
                  extending evaluation: inout Evaluation, needed: Int = .max) {
        if evaluation.isComplete || evaluation.keys.count >= needed { return }
        let probe = ObjectProbe<Element>(table: table, frozen: frozen ?? state)
        let plan = QueryPlan(nodes: filters.map(\.node), sortPaths: persistedSortPaths + distinct,
                             table: table.index, state: state)
        let tests = filters.map { plan.compile($0.node) }
        let inexact = filters.filter { !$0.isExact }
        // Asked once: this code is generic over the element type, so each
        // `isEmpty` on `inexact` in the loop would run unspecialised.
        let allExact = inexact.isEmpty
        let unfiltered = filters.isEmpty
        // The translated parts decide first, non-generically; the predicates
        // of inexact filters run only on the objects that pass.
        func matches(_ key: ObjectKey, _ record: ObjectRecord) -> Bool {
            if EvaluationCounter.isInstalled { EvaluationCounter.current?.count() }
            guard plan.accepts(tests, plan.row(key, record)) else { return false }
            guard !allExact else { return true }
            let element = probe.element(key)
            return inexact.allSatisfy { (try? $0.predicate.evaluate(element)) ?? false }
        }
        if let indexed = indexCandidates(in: state, table: table) {
            let keys = indexed.filter { key in state.object(table: table.index, key: key).map { matches(key, $0) } ?? false }
            evaluation = Evaluation(keys: finish(keys, plan: plan, probe: probe), isComplete: true)
            return
        }
        if !sort.isEmpty || !distinct.isEmpty {
            var keys: [ObjectKey] = []
            for (key, record) in state.objects(table: table.index) where unfiltered || matches(key, record) {
                keys.append(key)
            }
            evaluation = Evaluation(keys: finish(keys, plan: plan, probe: probe), isComplete: true)
            return
        }
        for (key, record) in state.objects(table: table.index, from: evaluation.resumeKey) {
            evaluation.resumeKey = ObjectKey(key.rawValue + 1)
            if unfiltered || matches(key, record) {
                evaluation.keys.append(key)
                if evaluation.keys.count >= needed { return }
            }
        }
        evaluation.isComplete = true
    }

    private var persistedSortPaths: [PropertyPath] {
        sort.compactMap { if case .persisted(let key) = $0 { key.path } else { nil } }
    }

    /// Sorts, then removes duplicates.
    private func finish(_ keys: [ObjectKey], plan: QueryPlan, probe: ObjectProbe<Element>) -> [ObjectKey] {
        distinctKeys(sort.isEmpty ? keys : sorted(keys, plan: plan, probe: probe), plan: plan)
    }

    private func distinctKeys(_ keys: [ObjectKey], plan: QueryPlan) -> [ObjectKey] {
        guard !distinct.isEmpty else { return keys }
        var seen = Set<[PersistedValue]>()
        return keys.filter { key in
            guard let record = plan.state.object(table: plan.table, key: key) else { return false }
            let row = plan.row(key, record)
            return seen.insert(distinct.map { row.value(at: $0) ?? .null }).inserted
        }
    }

    private func indexCandidates(in state: StoreState, table: TableBinding) -> [ObjectKey]? {
        for filter in filters {
            if let keys = IndexPlanner.candidates(for: filter.node, table: table.index, in: state) { return keys }
        }
        return nil
    }

    private func sorted(_ keys: [ObjectKey], plan: QueryPlan, probe: ObjectProbe<Element>) -> [ObjectKey] {
        // Each object's sort values are read once, not once per comparison.
        let sortPaths = persistedSortPaths
        let values: [[PersistedValue]] = keys.map { key in
            guard let record = plan.state.object(table: plan.table, key: key) else { return sortPaths.map { _ in .null } }
            let row = plan.row(key, record)
            return sortPaths.map { row.value(at: $0) ?? .null }
        }
        var elements: [Element?] = Array(repeating: nil, count: keys.count)
        func element(_ index: Int) -> Element {
            if let cached = elements[index] { return cached }
            let made = probe.element(keys[index])
            elements[index] = made
            return made
        }
        let order = keys.indices.sorted { a, b in
            var persisted = 0
            for term in sort {
                switch term {
                case .persisted(let key):
                    let l = values[a][persisted], r = values[b][persisted]
                    persisted += 1
                    if PersistedValue.ordered(l, r) { return key.ascending }
                    if PersistedValue.ordered(r, l) { return !key.ascending }
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

    /// Whether any counter was ever created: queries skip the task-local
    /// look-up (a cost per object examined) in processes that never count.
    static var isInstalled: Bool { installed.load(ordering: .relaxed) }
    private static let installed = Atomic<Bool>(false)

    init() { Self.installed.store(true, ordering: .relaxed) }
}
