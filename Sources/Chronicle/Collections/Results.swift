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
    let query: ResultsQuery
    private let cache = ResultsCache()

    init(store: Store, frozen: StoreState?, query: ResultsQuery = ResultsQuery()) {
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

    /// The state this read sees.
    func currentState() -> (state: StoreState, cacheable: Bool) {
        if let frozen { return (frozen, true) }
        if store.isInWriteTransaction { return (store.readableState(), false) }
        return (store.committedState(), true)
    }

    /// The matching keys for the state a read sees now.
    func evaluated() -> (keys: [ObjectKey], table: TableBinding?, state: StoreState) {
        let (state, cacheable) = currentState()
        let table = store.tableBinding(for: Element._rootType, in: state)
        if cacheable, let keys = cache.keys(for: state.version) { return (keys, table, state) }
        let keys = table.map { query.evaluate(in: state, table: $0, frozen: frozen) } ?? []
        if cacheable { cache.store(keys, for: state.version) }
        return (keys, table, state)
    }

    func element(table: TableBinding, key: ObjectKey) -> Element {
        let object = table.metadata.type.init()
        _ = object.binding.storeIfNil(ObjectBinding(.managed(table, key, frozen: frozen)))
        return Element._project(object)
    }

    // MARK: Derived queries

    /// The results that also match `predicate`.
    ///
    /// The predicate is translated into Chronicle's query form where it can
    /// be (see the collections article for the fast forms); other forms are
    /// evaluated object by object — same results, slower.
    public func filter(_ predicate: Predicate<Element>) -> Results<Element> {
        var query = query
        query.filters.append(.predicate(PredicateBox(predicate)))
        return Results(store: store, frozen: frozen, query: query)
    }

    /// The results sorted by a property.
    ///
    /// - Precondition: `keyPath` reads a persisted property.
    public func sorted<Value: Comparable>(by keyPath: KeyPath<Element, Value>, ascending: Bool = true) -> Results<Element> {
        var query = query
        query.sort.insert(SortKey(path: ResultsQuery.persistedPath(keyPath, of: Element.self), ascending: ascending), at: 0)
        return Results(store: store, frozen: frozen, query: query)
    }
}

extension Results: RandomAccessCollection {
    public var startIndex: Int { 0 }
    public var endIndex: Int { evaluated().keys.count }

    /// The element at `position`, a managed handle on the current state.
    public subscript(position: Int) -> Element {
        let (keys, table, _) = evaluated()
        precondition(position >= 0 && position < keys.count, "Chronicle: Results index \(position) is out of bounds (count \(keys.count))")
        return element(table: table!, key: keys[position])
    }

    /// Iterates over the results as they were when iteration began.
    public func makeIterator() -> Iterator {
        let (keys, table, _) = evaluated()
        return Iterator(results: self, keys: keys, table: table)
    }

    /// Iterates over one evaluation of the results.
    public struct Iterator: IteratorProtocol {
        let results: Results
        let keys: [ObjectKey]
        let table: TableBinding?
        var index = 0
        public mutating func next() -> Element? {
            guard index < keys.count, let table else { return nil }
            defer { index += 1 }
            return results.element(table: table, key: keys[index])
        }
    }
}

/// Caches a Results' evaluation for one state version.
final class ResultsCache: Sendable {
    private let entry = Mutex<(version: UInt64, keys: [ObjectKey])?>(nil)
    func keys(for version: UInt64) -> [ObjectKey]? {
        entry.withLock { entry in entry.flatMap { $0.version == version ? $0.keys : nil } }
    }
    func store(_ keys: [ObjectKey], for version: UInt64) {
        entry.withLock { $0 = (version, keys) }
    }
}
