extension Results {
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
        private let frozenState: PinnedState?
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
        /// While iterating every object of a folded table of a published
        /// state: the walk over its objects trie, whose records go to the
        /// handles straight from their leaves (see ``ObjectLeafScan``).
        private var leaves: ObjectLeafScan?
        /// The element yielded last, when elements may be reused: if the
        /// caller let go of it, the next element is that one moved (see
        /// ``liveElement(key:snapshot:encoded:)``).
        private var lastElement: Element?
        /// `lastElement` as its handle, unretained (`lastElement` keeps
        /// it), when the elements are the handles: read without the
        /// generic `Element`, whose every use from this unspecialised
        /// code asks for type metadata.
        private var lastHandle: Unmanaged<ObjectBase>?
        /// Where the encoded scan's last object lies in its block, for
        /// ``liveElement(key:snapshot:encoded:)`` (kept here rather than
        /// passed: the other paths would pass an empty one on every
        /// element).
        private var encodedPlace: EncodedBlock.Place?
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
            frozenState = results.frozen.map(PinnedState.init)
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
               state.tables.indices.contains(table.index) {
                if let deferred = state.tables[table.index].deferred {
                    encoded = EncodedScan(deferred)
                } else {
                    leaves = ObjectLeafScan(state.tables[table.index].objects)
                }
            }
        }

        /// The next element, or `nil` at the end.
        public mutating func next() -> Element? {
            // `state` is bound only where it is used: binding it here
            // retained and released its three buffers on every element.
            guard let unretainedTable else { return nil }
            if leaves != nil {
                guard let (key, record) = leaves!.next() else { return nil }
                return liveElement(key: key, snapshot: record.pointee, encoded: nil)
            }
            if encoded != nil {
                switch encoded!.next() {
                case .object(let key, let block, let place):
                    // The reused handle moved here, not in `liveElement`:
                    // no record to swap in and drop.
                    if reusesElements, let handle = reusableHandle() {
                        handle._withUnsafeGuaranteedRef { $0.relocate(to: key, encoded: block, at: place, sequence: sequence) }
                        return lastElement.unsafelyUnwrapped
                    }
                    encodedPlace = place
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
                        store.handle(table.metadata.type, table: table, key: key, .frozen(frozenState))
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
        /// ``HandleReading/remembering(_:encoded:sequence:)``), or a
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
            if reusesElements, let handle = reusableHandle() {
                let kept = snapshot != nil || encoded != nil ? sequence : 0
                var record = snapshot.take()
                let place = encoded == nil ? nil : encodedPlace
                handle._withUnsafeGuaranteedRef { $0.relocate(to: key, snapshot: &record, encoded: encoded, at: place, sequence: kept) }
                return lastElement.unsafelyUnwrapped
            }
            let sequence = self.sequence
            let handle = unretainedStore._withUnsafeGuaranteedRef { store in
                unretainedTable.unsafelyUnwrapped._withUnsafeGuaranteedRef { table in
                    store.handle(table.metadata.type, table: table, key: key,
                                 .remembering(snapshot.take(), encoded: encoded?.takeUnretainedValue(), sequence: sequence))
                }
            }
            let made = Unmanaged.passUnretained(handle)
            let element = Element._project(handle)
            lastElement = reusesElements ? element : nil
            lastHandle = reusesElements && elementsAreHandles ? made : nil
            return element
        }

        /// The handle of ``lastElement`` if the caller let go of it and it
        /// may be moved: `lastElement` holds the element's only strong
        /// reference, and the handle may be relocated
        /// (``ObjectBase/isRelocatable``, or for a projection
        /// ``_ObjectProjecting/_relocatableRoot``).
        ///
        /// For handles, one load of the handle's inline reference count
        /// answers both questions
        /// (`Unmanaged.isHeldOnceAndNeverWeaklyOrUnownedReferenced`),
        /// rather than a call of `isKnownUniquelyReferenced`, which is not
        /// specialised here (the iterator is generic and not inlinable), and
        /// a second look at the count. The handle is ``lastHandle``, so
        /// that no copy of the element, retained, is counted.
        @inline(__always)
        private mutating func reusableHandle() -> Unmanaged<ObjectBase>? {
            if elementsAreHandles {
                guard let handle = lastHandle else { return nil }
                return handle.isHeldOnceAndNeverWeaklyOrUnownedReferenced
                    && handle._withUnsafeGuaranteedRef { $0.isUnboundLiveHandle } ? handle : nil
            }
            guard isKnownUniquelyReferenced(&lastElement) else { return nil }
            return lastElement.unsafelyUnwrapped._relocatableRoot
        }
    }
}
