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

    /// Whether the query selects every object of its type (no filter, no
    /// distinct; a sort only orders them).
    var selectsEveryObject: Bool { filters.isEmpty && distinct.isEmpty }

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
        /// Whether a scan also keeps each match's record, in `records`,
        /// index for index with `keys`, sorted with them (an iterator's
        /// evaluation: its handles then remember their records without a
        /// look-up). Other evaluations, and those answered from an index,
        /// leave `records` empty.
        var collectsRecords = false
        var records: [ObjectRecord] = []
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

    /// The query compiled against one state: what every resumption of an
    /// evaluation in that state needs. An iterator, which resumes its
    /// evaluation every 64 elements, prepares once: preparing per resumption
    /// (resolving the plan's paths, compiling the test, sorting the filters
    /// out, and, unspecialised, instantiating a generic key path twice) was
    /// a large part of the cost of each element materialised.
    ///
    /// A class: as a generic struct of this shape, a copy of it was
    /// destroyed with a different layout than it was made with in a
    /// debug build under ThreadSanitizer (a release of a stored `Bool`'s
    /// bits, `ConcurrencyStressTests`); a reference has no copies to get wrong.
    ///
    /// - Complexity: making one is O(size of the filters + paths read).
    final class Prepared {
        let plan: QueryPlan
        let test: QueryPlan.CompiledTest?
        /// The filters the plan cannot decide alone.
        let inexact: [Query<Element>]
        let probe: ObjectProbe<Element>
        /// The candidates an index gives, if one answers the query.
        let indexed: IndexPlanner.Answer?
        /// Whether `indexed` is exactly the answer (one filter, an equality
        /// the index decides): no object need be read.
        let isIndexExact: Bool
        /// Whether the results are sorted or distinct, and so evaluated whole.
        let isWhole: Bool
        let isSorted: Bool
        /// Whether `inexact` is empty.
        let isExact: Bool
        /// The state version and table it was made for: a safety net,
        /// since a state inside a write changes without a new version.
        /// Its keeper reuses it only for the one state it evaluates.
        let version: UInt64
        let table: TableBinding

        init(plan: QueryPlan, test: QueryPlan.CompiledTest?, inexact: [Query<Element>], probe: ObjectProbe<Element>,
             indexed: IndexPlanner.Answer?, isIndexExact: Bool, isWhole: Bool, isSorted: Bool, isExact: Bool,
             version: UInt64, table: TableBinding) {
            self.plan = plan
            self.test = test
            self.inexact = inexact
            self.probe = probe
            self.indexed = indexed
            self.isIndexExact = isIndexExact
            self.isWhole = isWhole
            self.isSorted = isSorted
            self.isExact = isExact
            self.version = version
            self.table = table
        }

        /// Whether it was made for `table` in (a state of the version of) `state`.
        func isPrepared(for state: StoreState, table: TableBinding) -> Bool {
            self.table === table && version == state.version
        }
    }

    /// The query compiled against `state`.
    func prepare(in state: StoreState, table: TableBinding, frozen: StoreState?) -> Prepared {
        // Closures, not key paths: a key path on the generic `Query` is
        // instantiated at run time on every use, a costly runtime call.
        // The flags too are worked out once: each question asked of a generic
        // array in unspecialised code looks its metadata up.
        let nodes = filters.map { $0.node }
        let plan = QueryPlan(nodes: nodes, sortPaths: persistedSortPaths + distinct, table: table.index, state: state,
                             absentValues: table.absentValues)
        let inexact = filters.filter { !$0.isExact }
        let indexed = indexCandidates(in: state, table: table)
        return Prepared(plan: plan, test: plan.compile(all: nodes), inexact: inexact,
                        probe: ObjectProbe<Element>(table: table, frozen: frozen ?? state),
                        indexed: indexed, isIndexExact: filters.count == 1 && indexed?.isExact == true,
                        isWhole: !sort.isEmpty || !distinct.isEmpty, isSorted: !sort.isEmpty, isExact: inexact.isEmpty,
                        version: state.version, table: table)
    }

    /// Extends `evaluation` in place until it holds `needed` keys or is
    /// complete. In place, so that resuming a long evaluation appends to its
    /// keys instead of copying them (an iterator resumes every 64 elements:
    /// copying made iterating n results O(n²)).
    func evaluate(in state: StoreState, table: TableBinding, frozen: StoreState?,
                  extending evaluation: inout Evaluation, needed: Int = .max) {
        var prepared: Prepared?
        evaluate(in: state, table: table, frozen: frozen, extending: &evaluation, prepared: &prepared, needed: needed)
    }

    /// ``evaluate(in:table:frozen:extending:needed:)``, compiling the query
    /// into `prepared` unless it already holds it compiled for this table
    /// and state version, so that the caller can keep it for the next
    /// resumption. Keep one only for one state: inside a write, a state
    /// changes without changing its version.
    func evaluate(in state: StoreState, table: TableBinding, frozen: StoreState?,
                  extending evaluation: inout Evaluation, prepared: inout Prepared?, needed: Int = .max) {
        if evaluation.isComplete || evaluation.keys.count >= needed { return }
        let current: Prepared
        if let prepared, prepared.isPrepared(for: state, table: table) {
            current = prepared
        } else {
            current = prepare(in: state, table: table, frozen: frozen)
            prepared = current
        }
        let plan = current.plan, test = current.test, inexact = current.inexact, probe = current.probe
        if let indexed = current.indexed {
            // An equality the index answers exactly (the commonest indexed
            // query, alone) needs no object read at all.
            var keys = current.isIndexExact ? indexed.keys : plan.filter(indexed.keys, accepting: test)
            if !current.isExact { keys = keys.filter { passes(inexact, $0, probe) } }
            evaluation = Evaluation(keys: finish(keys, records: [], plan: plan, probe: probe).keys, isComplete: true)
            return
        }
        // Sorted and distinct results are evaluated whole, from the start.
        let complete = current.isWhole
        let needed = complete ? .max : needed
        let collectsRecords = evaluation.collectsRecords
        if complete { evaluation = Evaluation(collectsRecords: collectsRecords) }
        var resume: ObjectKey? = evaluation.resumeKey
        if current.isExact {
            // The common case: every filter translated, and the scan is
            // non-generic (see `QueryPlan.scan`). A sort reads its keys'
            // values from the records the scan keeps, not by a look-up per
            // match (a trie walk, and a cache miss or two, each).
            resume = plan.scan(from: evaluation.resumeKey, accepting: test, into: &evaluation.keys,
                               records: &evaluation.records, collectingRecords: collectsRecords || current.isSorted,
                               needed: needed)
        } else {
            // The translated parts decide first; the predicates of inexact
            // filters run only on the objects that pass, which come in
            // batches no larger than the matches still needed, so a partial
            // evaluation examines no object past the last match it needs.
            var candidates: [ObjectKey] = []
            while let start = resume, evaluation.keys.count < needed {
                candidates.removeAll(keepingCapacity: true)
                resume = plan.scan(from: start, accepting: test, into: &candidates,
                                   needed: min(64, needed - evaluation.keys.count))
                for key in candidates where passes(inexact, key, probe) { evaluation.keys.append(key) }
            }
        }
        if complete {
            let (keys, records) = finish(evaluation.keys, records: evaluation.records, plan: plan, probe: probe)
            evaluation = Evaluation(keys: keys, isComplete: true, collectsRecords: collectsRecords,
                                    records: collectsRecords ? records : [])
        } else if let resume {
            evaluation.resumeKey = resume
        } else {
            evaluation.isComplete = true
        }
    }

    /// Whether the object `key` satisfies every predicate of `inexact`
    /// filters, evaluated in Swift on a managed element.
    private func passes(_ inexact: [Query<Element>], _ key: ObjectKey, _ probe: ObjectProbe<Element>) -> Bool {
        let element = probe.element(key)
        return inexact.allSatisfy { (try? $0.predicate.evaluate(element)) ?? false }
    }

    private var persistedSortPaths: [PropertyPath] {
        sort.compactMap { if case .persisted(let key) = $0 { key.path } else { nil } }
    }

    /// Sorts, then removes duplicates. `records`, when not empty, holds
    /// the record of each key (index for index); the result keeps them in
    /// step with the keys.
    private func finish(_ keys: [ObjectKey], records: [ObjectRecord], plan: QueryPlan,
                        probe: ObjectProbe<Element>) -> (keys: [ObjectKey], records: [ObjectRecord]) {
        var keys = keys
        var records = records.count == keys.count ? records : []
        if !sort.isEmpty {
            let order = sortedOrder(keys, records: records, plan: plan, probe: probe)
            keys = order.map { keys[$0] }
            if !records.isEmpty { records = order.map { records[$0] } }
        }
        guard !distinct.isEmpty else { return (keys, records) }
        var seen = Set<[PersistedValue]>()
        var kept: [Int] = []
        for (row, key) in keys.enumerated() {
            guard let record = records.isEmpty ? plan.state.object(table: plan.table, key: key) : records[row] else { continue }
            let values = plan.withRow(key, record) { row in distinct.map { row.value(at: $0) ?? .null } }
            if seen.insert(values).inserted { kept.append(row) }
        }
        return (kept.map { keys[$0] }, records.isEmpty ? [] : kept.map { records[$0] })
    }

    private func indexCandidates(in state: StoreState, table: TableBinding) -> IndexPlanner.Answer? {
        for filter in filters {
            if let answer = IndexPlanner.candidates(for: filter.node, table: table.index, in: state) { return answer }
        }
        return nil
    }

    /// The positions of `keys` in sorted order.
    private func sortedOrder(_ keys: [ObjectKey], records: [ObjectRecord], plan: QueryPlan,
                             probe: ObjectProbe<Element>) -> [Int] {
        // Each object's sort values are read once, not once per comparison.
        let sortKeys = sort.compactMap { if case .persisted(let key) = $0 { key } else { nil } }
        // A key on one of the object's own properties (no link to cross),
        // resolved once: its values come straight from the records. Through
        // a row, each value resolved the key's path again (comparing it
        // with the plan's paths) for every object sorted.
        let ownProperties: [Int?] = sortKeys.map { key in
            guard let steps = plan.steps(for: key.path), steps.count == 1, steps[0].target == nil else { return nil }
            return steps[0].property
        }
        let columns = SortColumns(keys: sortKeys, count: keys.count) { row, key in
            if let property = ownProperties[key], !records.isEmpty {
                return records[row].valueIfPresent(property)
            }
            guard let record = records.isEmpty ? plan.state.object(table: plan.table, key: keys[row]) : records[row] else {
                return nil
            }
            return plan.withRow(keys[row], record) { $0.value(at: sortKeys[key].path) }
        }
        // Only persisted keys: the whole sort runs on the columns, non-generically.
        if sortKeys.count == sort.count { return columns.sortedRows() }
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
                let result: ComparisonResult
                switch term {
                case .persisted:
                    result = columns.compare(a, b, key: persisted)
                    persisted += 1
                case .computed(let ascending, let compare):
                    switch compare(element(a), element(b)) {
                    case .orderedAscending: result = ascending ? .orderedAscending : .orderedDescending
                    case .orderedDescending: result = ascending ? .orderedDescending : .orderedAscending
                    case .orderedSame: result = .orderedSame
                    }
                }
                switch result {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return a < b
        }
        return order
    }
}

/// Builds managed elements for predicates and computed sorts.
struct ObjectProbe<Element: _ObjectProjecting> {
    let table: TableBinding
    let frozen: StoreState

    func element(_ key: ObjectKey) -> Element {
        Element._project(table.store.handle(table.metadata.type, table: table, key: key, .frozen(in: frozen)))
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
            let value = record[property]
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
