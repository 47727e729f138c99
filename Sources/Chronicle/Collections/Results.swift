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
        Element._project(store.handle(table.metadata.type, table: table, key: key, frozenState: frozen.map(FrozenState.init),
                                      in: state, sequence: sequence))
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

    /// Iterates over one state's results, evaluating lazily.
    ///
    /// Each element is a live handle. When you let go of the element
    /// before asking for the next — nothing else holds it, strongly, weakly
    /// or `unowned` — and the model class stores only `@Persisted`
    /// properties, the iterator moves that handle to the next object rather
    /// than making a new one: an element you keep never changes object, and
    /// a loop that reads and drops each element makes one handle. A model's
    /// `init()` therefore runs once per handle made, not per element (see
    /// <doc:DefiningModels>).
    public struct Iterator: IteratorProtocol {
        // The parts of the results it needs, not the results: reading a
        // stored property of the generic `Results` from unspecialised code
        // looked its type metadata up on every element.
        private let store: Store
        /// `store`, unretained (`store` keeps it alive), for the same reason
        /// as `unretainedTable`.
        private let unretainedStore: Unmanaged<Store>
        private let frozen: StoreState?
        /// `frozen`, boxed once for all the handles the iteration makes.
        private let frozenState: FrozenState?
        private let query: ResultsQuery<Element>
        private var state: StoreState?
        private var sequence: UInt64
        private let table: TableBinding?
        /// `table`, unretained (`table` keeps it alive): binding the
        /// optional reference to a local retained and released it on every
        /// element.
        private let unretainedTable: Unmanaged<TableBinding>?
        private var evaluation = ResultsQuery<Element>.Evaluation(collectsRecords: true)
        /// The query compiled against `state`, once for the whole iteration.
        private var prepared: ResultsQuery<Element>.Prepared?
        private var index = 0
        private let batch = 64
        /// While iterating every object of a table still in its checkpoint
        /// file: the walk over its blocks, whose handles decode only the
        /// values read (see ``EncodedScan``).
        private var encoded: EncodedScan?
        /// The element yielded last, when elements may be reused: if the
        /// caller let go of it, the next element is that one moved (see
        /// ``liveElement(key:snapshot:encoded:)``).
        private var lastElement: Element?
        /// Whether the model class stores only `@Persisted` properties
        /// (``ClassMetadata/allowsHandleReuse``) and, for a projection,
        /// the projection class only `@Projected` ones
        /// (``ProjectionMetadata/allowsReuse``).
        private let reusesElements: Bool
        /// Whether the elements are the handles themselves (not projections).
        private let elementsAreHandles = Element._rootType == Element.self

        init(results: Results) {
            store = results.store
            unretainedStore = Unmanaged.passUnretained(results.store)
            frozen = results.frozen
            frozenState = results.frozen.map(FrozenState.init)
            query = results.query
            let (state, sequence) = results.currentState()
            self.state = state
            self.sequence = sequence
            table = results.store.tableBinding(for: Element._rootType, in: state)
            unretainedTable = table.map { Unmanaged.passUnretained($0) }
            reusesElements = results.frozen == nil && table?.metadata.allowsHandleReuse == true
                && (elementsAreHandles || ProjectionMetadata.of(Element.self).allowsReuse)
            // Only a live, published state's handles can keep an encoded
            // block (a frozen handle, or one made inside a write, reads
            // its state instead); only an unfiltered, unsorted iteration
            // yields every object in key order.
            if let table, sequence != 0, results.frozen == nil, query.selectsEveryObject, query.sort.isEmpty,
               state.tables.indices.contains(table.index),
               let deferred = state.tables[table.index].deferred {
                encoded = EncodedScan(deferred)
            }
        }

        /// The next element, or `nil` at the end.
        public mutating func next() -> Element? {
            // `state` is bound only where it is used: binding it here
            // retained and released its three buffers on every element.
            guard let unretainedTable else { return nil }
            if encoded != nil {
                switch encoded!.next() {
                case .object(let key, let block):
                    return liveElement(key: key, snapshot: nil, encoded: block)
                case .end:
                    return nil
                case .unavailable(let resume):
                    encoded = nil
                    evaluation.resumeKey = resume
                }
            }
            if index >= evaluation.keys.count {
                // The batch read is dropped: an iteration holds one batch
                // of keys and records, not all it has yielded.
                guard let state, !evaluation.isComplete else { return nil }
                evaluation.keys.removeAll(keepingCapacity: true)
                evaluation.records.removeAll(keepingCapacity: true)
                index = 0
                unretainedTable._withUnsafeGuaranteedRef { table in
                    query.evaluate(in: state, table: table, frozen: frozen, extending: &evaluation,
                                   prepared: &prepared, needed: batch)
                }
                guard index < evaluation.keys.count else { return nil }
            }
            defer { index += 1 }
            let key = evaluation.keys[index]
            if let frozenState {
                let handle = unretainedStore._withUnsafeGuaranteedRef { store in
                    unretainedTable._withUnsafeGuaranteedRef { table in
                        store.handle(table.metadata.type, table: table, key: key, frozenState: frozenState)
                    }
                }
                return Element._project(handle)
            }
            // A handle made while reading the published state keeps the
            // object's record (see `ObjectBase.liveSnapshot`); the scan
            // kept the records, or else one look-up here saves one per read.
            let snapshot = sequence == 0 ? nil
                : evaluation.records.count == evaluation.keys.count ? evaluation.records[index]
                : state.unsafelyUnwrapped.object(table: unretainedTable._withUnsafeGuaranteedRef { $0.index }, key: key)
            return liveElement(key: key, snapshot: snapshot, encoded: nil)
        }

        /// The element on object `key`: a live handle keeping its record
        /// or encoded block in the published state (see
        /// ``Store/handle(_:table:key:snapshot:encoded:sequence:)``), or a
        /// projection of one.
        ///
        /// When elements may be reused and the caller let go of the last one
        /// (nothing else can reach it or its handle:
        /// ``_ObjectProjecting/_relocatableRoot``), its handle is moved to
        /// `key` and the same element returned. Making and freeing a handle was
        /// the largest part of iterating every object of a table; a projection
        /// is one more object. To the caller a reused element is a new one that
        /// the allocator placed where the last one was: it dropped every
        /// reference to the last one, and the classes keep no state but the
        /// object's location.
        ///
        /// The block and the reused handle are passed unretained (the scan
        /// and `lastElement` keep them), and no closure here captures
        /// `self`: one that did asked for the iterator's generic metadata
        /// on every element.
        private mutating func liveElement(key: ObjectKey, snapshot: consuming ObjectRecord?, encoded: Unmanaged<EncodedBlock>?) -> Element {
            if reusesElements, isKnownUniquelyReferenced(&lastElement),
               let handle = elementsAreHandles ? relocatable(lastElement.unsafelyUnwrapped) : lastElement.unsafelyUnwrapped._relocatableRoot.map(Unmanaged.passUnretained) {
                let kept = snapshot != nil || encoded != nil ? sequence : 0
                var record = snapshot.take()
                handle._withUnsafeGuaranteedRef { $0.relocate(to: key, snapshot: record.take(), encoded: encoded, sequence: kept) }
                return lastElement.unsafelyUnwrapped
            }
            let sequence = self.sequence
            let handle = unretainedStore._withUnsafeGuaranteedRef { store in
                unretainedTable.unsafelyUnwrapped._withUnsafeGuaranteedRef { table in
                    store.handle(table.metadata.type, table: table, key: key, snapshot: snapshot.take(),
                                 encoded: encoded?.takeUnretainedValue(), sequence: sequence)
                }
            }
            let element = Element._project(handle)
            lastElement = reusesElements ? element : nil
            return element
        }

        /// `element`, a handle, if it may be moved: what
        /// ``_ObjectProjecting/_relocatableRoot`` answers, without the
        /// protocol call per element.
        @inline(__always)
        private func relocatable(_ element: Element) -> Unmanaged<ObjectBase>? {
            let handle = Unmanaged.passUnretained(unsafeDowncast(element as AnyObject, to: ObjectBase.self))
            return handle._withUnsafeGuaranteedRef { $0.isRelocatable } ? handle : nil
        }
    }

    /// The first element, evaluating only as far as the first match.
    public var first: Element? { isEmpty ? nil : self[0] }

    /// Whether there are no results, evaluating only as far as the first match.
    public var isEmpty: Bool { evaluated(needed: 1).keys.isEmpty }
}

/// Caches a Results' evaluation for one state version, so that reading the
/// same results twice between commits does the work once.
final class ResultsCache: Sendable {
    private let entry = Locked<(version: UInt64, keys: [ObjectKey], resume: ObjectKey, complete: Bool)?>(nil)

    func evaluation<Element>(for version: UInt64) -> ResultsQuery<Element>.Evaluation? {
        entry.withLock { entry in
            guard let entry, entry.version == version else { return nil }
            return .init(keys: entry.keys, resumeKey: entry.resume, isComplete: entry.complete)
        }
    }

    /// Removes and returns the evaluation of `version`, so the caller holds
    /// the only reference to its keys while it extends them. Another reader
    /// meanwhile finds none and evaluates on its own (same result).
    func take<Element>(for version: UInt64) -> ResultsQuery<Element>.Evaluation? {
        entry.withLock { entry in
            guard let taken = entry, taken.version == version else { return nil }
            entry = nil
            return .init(keys: taken.keys, resumeKey: taken.resume, isComplete: taken.complete)
        }
    }

    func store<Element>(_ evaluation: ResultsQuery<Element>.Evaluation, for version: UInt64) {
        entry.withLock { entry in
            // Keep the furthest evaluation of this version.
            if let current = entry, current.version == version, current.keys.count > evaluation.keys.count { return }
            entry = (version, evaluation.keys, evaluation.resumeKey, evaluation.isComplete)
        }
    }
}
