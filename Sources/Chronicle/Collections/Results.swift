import Foundation
import Synchronization

/// The lazily evaluated, live result of a query.
///
/// `Results` is immutable: it has no methods that add or remove elements.
/// It is *live*: every read evaluates against the store's current state,
/// so a later commit is reflected the next time you read, without
/// refreshing. It is *lazy*: nothing runs until you read `count`, an
/// element, or iterate, and the evaluation is cached for the state version
/// it ran against. ``freeze()`` pins it to the current version.
///
/// ```swift
/// let adults = store.objects(Person.self)
///     .filter(#Predicate { $0.age >= 18 })
///     .sorted(by: \.lastName)
/// ```
public struct Results<Element: _ObjectProjecting>: Sendable {
    let store: Store
    let frozen: StoreState?
    let query: ResultsQuery<Element>
    private let cache = ResultsCache()

    init(store: Store, frozen: StoreState?, query: ResultsQuery<Element> = ResultsQuery()) {
        self.store = store
        self.frozen = frozen
        self.query = query
    }

    /// Whether the results are pinned to one version and never change.
    public var isFrozen: Bool { frozen != nil }

    /// The results pinned to the store's current version.
    public func freeze() -> Results<Element> {
        Results(store: store, frozen: frozen ?? store.committedState(), query: query)
    }

    /// The live results of the same query.
    public func thaw() -> Results<Element> {
        Results(store: store, frozen: nil, query: query)
    }

    // MARK: Evaluation

    /// The state this read sees; its publication sequence when it is the
    /// store's published state (`0` when frozen, or inside a write).
    func currentState() -> (state: StoreState, sequence: UInt64) {
        if let frozen { return (frozen, 0) }
        return store.readableSnapshot()
    }

    /// The matching keys for the state a read sees now, evaluated until at
    /// least `needed` are known (or all of them).
    func evaluated(needed: Int = .max) -> (keys: [ObjectKey], table: TableBinding?, state: StoreState, sequence: UInt64) {
        let (state, sequence) = currentState()
        guard let table = store.tableBinding(for: Element._rootType, in: state) else { return ([], nil, state, sequence) }
        // A write in progress on this thread reads its own, unpublished state.
        guard frozen != nil || sequence != 0 else {
            return (query.evaluate(in: state, table: table, frozen: frozen, needed: needed).keys, table, state, sequence)
        }
        let cached: ResultsQuery<Element>.Evaluation? = cache.evaluation(for: state.version)
        if let cached, cached.isComplete || cached.keys.count >= needed { return (cached.keys, table, state, sequence) }
        // Taken out of the cache while it grows, so its keys are extended in
        // place rather than copied.
        var evaluation: ResultsQuery<Element>.Evaluation = cache.take(for: state.version) ?? .init()
        query.evaluate(in: state, table: table, frozen: frozen, extending: &evaluation, needed: needed)
        cache.store(evaluation, for: state.version)
        return (evaluation.keys, table, state, sequence)
    }

    /// A handle on object `key`, read from `state`, whose publication
    /// sequence is `sequence` (`0` if it is not a published state).
    func element(table: TableBinding, key: ObjectKey, in state: StoreState, sequence: UInt64) -> Element {
        Element._project(store.handle(table.metadata.type, table: table, key: key,
                                      .found(in: state, table: table.index, key: key, sequence: sequence, frozen: frozen)))
    }

    // MARK: Derived queries

    /// The results that also match `predicate`.
    ///
    /// The predicate is translated into Chronicle's query form where it can
    /// be (see the collections article for the fast forms); other forms are
    /// evaluated object by object — same results, slower.
    ///
    /// - Precondition: every key path in the predicate reads a persisted
    ///   property (for a projection, a projected one); the message names
    ///   the one that does not.
    public func filter(_ predicate: Predicate<Element>) -> Results<Element> {
        do {
            return try filtered(predicate)
        } catch {
            preconditionFailure("Chronicle: cannot filter \(Element.self): \(error)")
        }
    }

    /// ``filter(_:)``, throwing instead of stopping when a key path in the
    /// predicate reads no persisted property. (A computed property that
    /// reads persisted ones, like `Dog.firstLetter`, is evaluated object by
    /// object.)
    ///
    /// - Throws: ``QueryError/unknownKeyPath(_:)``.
    public func filtered(_ predicate: Predicate<Element>) throws -> Results<Element> {
        var query = query
        query.filters.append(try Query(predicate, resolver: ResultsQuery<Element>.resolve))
        return Results(store: store, frozen: frozen, query: query)
    }

    /// The results sorted by a property. Each call makes its key the most
    /// significant and keeps earlier keys as tie-breakers, like sorting an
    /// already sorted array again (the sort is stable).
    ///
    /// A key path through a transformation (a transformed projected
    /// property) sorts by the computed values.
    ///
    /// - Precondition: `keyPath` reads a persisted property.
    public func sorted<Value: Comparable>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        sorted(by: keyPath, ascending: ascending) { a, b in
            let l = a[keyPath: keyPath], r = b[keyPath: keyPath]
            return l < r ? .orderedAscending : (r < l ? .orderedDescending : .orderedSame)
        }
    }

    /// The results sorted by an optional property; `nil` sorts first
    /// when ascending, last when descending.
    public func sorted<Value: Comparable>(by keyPath: KeyPath<Element, Value?>, ascending: Bool = true) -> Results<Element> {
        sorted(by: keyPath, ascending: ascending) { a, b in
            switch (a[keyPath: keyPath], b[keyPath: keyPath]) {
            case (nil, nil): .orderedSame
            case (nil, _): .orderedAscending
            case (_, nil): .orderedDescending
            case let (l?, r?): l < r ? .orderedAscending : (r < l ? .orderedDescending : .orderedSame)
            }
        }
    }

    /// Sorts by the stored values of `keyPath` when it reads a persisted
    /// property directly, otherwise by `compare` on the computed values.
    private func sorted(by keyPath: AnyKeyPath, ascending: Bool,
                        compare: @escaping (Element, Element) -> ComparisonResult) -> Results<Element> {
        let recorded: RecordedKeyPath
        do { recorded = try KeyPathMapping.record(keyPath) } catch {
            preconditionFailure("Chronicle: cannot sort \(Element.self): \(error)")
        }
        var query = query
        let term: ResultsQuery<Element>.SortTerm = recorded.isDirect
            ? .persisted(SortKey(PropertyPath(recorded.path), ascending: ascending))
            : .computed(ascending: ascending, compare: compare)
        query.sort.insert(term, at: 0)
        return Results(store: store, frozen: frozen, query: query)
    }

    /// The results sorted by Foundation sort descriptors, the first most
    /// significant. Sorting is stable.
    ///
    /// A descriptor whose key path computes its value from persisted
    /// properties (a computed property, a transformed projected property)
    /// sorts by the computed values, object by object.
    ///
    /// - Throws: ``QueryError/unknownKeyPath(_:)`` for a key path that reads
    ///   no persisted property, ``QueryError/unsupportedSortDescriptor(_:)``
    ///   for a descriptor without a key path or with a string comparator.
    public func sorted(using descriptors: [SortDescriptor<Element>]) throws -> Results<Element> {
        var query = query
        var terms: [ResultsQuery<Element>.SortTerm] = []
        for descriptor in descriptors {
            do {
                terms += try SortKey.keys(for: [descriptor], resolver: ResultsQuery<Element>.resolve).map { .persisted($0) }
            } catch is ComputedKeyPath {
                // A computed key path sorts by the values Swift computes.
                terms.append(.computed(ascending: true) { descriptor.compare($0, $1) })
            }
        }
        query.sort = terms + query.sort
        return Results(store: store, frozen: frozen, query: query)
    }
}

extension Results: RandomAccessCollection {
    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of elements.
    public var endIndex: Int { count }

    /// The number of elements.
    ///
    /// - Complexity: O(1) for every object of a type (no filter); else
    ///   the query's evaluation, done once per state version.
    public var count: Int {
        guard query.selectsEveryObject else { return evaluated().keys.count }
        let (state, _) = currentState()
        guard let table = store.tableBinding(for: Element._rootType, in: state) else { return 0 }
        return state.count(table: table.index)
    }

    /// The element at `position`, a managed handle on the current state.
    ///
    /// - Complexity: O(1) once evaluated; for an unsorted query not yet
    ///   evaluated that far, the objects up to the `position`-th match.
    public subscript(position: Int) -> Element {
        let (keys, table, state, sequence) = evaluated(needed: position + 1)
        precondition(position >= 0 && position < keys.count, "Chronicle: Results index \(position) is out of bounds (count \(keys.count))")
        return element(table: table!, key: keys[position], in: state, sequence: sequence)
    }

    /// Iterates over the results of the state current when iteration
    /// began; an unsorted query is evaluated as the iteration advances.
    public func makeIterator() -> Iterator {
        Iterator(results: self)
    }

    /// The results of applying `transform` to each element, in order.
    ///
    /// Through the iterator, not by position as `Collection.map` does: the
    /// iterator reads each object once, from the scan (or, for a table
    /// still in its checkpoint file, from its block; see <doc:Performance>),
    /// where reading by position looks every element up again.
    ///
    /// - Complexity: O(*n*), one iteration.
    public func map<T, E: Error>(_ transform: (Element) throws(E) -> T) throws(E) -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try transform(element)) }
        return mapped
    }

    /// The first element, evaluating only as far as the first match.
    public var first: Element? { isEmpty ? nil : self[0] }

    /// Whether there are no results, evaluating only as far as the first match.
    public var isEmpty: Bool { evaluated(needed: 1).keys.isEmpty }
}
