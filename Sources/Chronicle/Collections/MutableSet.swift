import Synchronization

/// An unordered to-many relationship or set of values without duplicates,
/// declared as `@Persisted var tags: MutableSet<String>`.
///
/// Chronicle keeps a set's elements in insertion order, so iteration is
/// deterministic. Like ``List``, a managed set is live and changes only
/// inside a write; each change is a set event in the journal.
///
/// - Complexity: `contains` and `insert` are O(*k*) in the set's size.
public final class MutableSet<Element: _PersistableValue>: @unchecked Sendable {
    // Safety: as for List — immutable references when managed, a mutex when not.
    let storage: CollectionStorage<UnmanagedElements>

    /// An unmanaged set's elements, in insertion order, and their identities
    /// (see ``identity(_:)``) at the same positions.
    struct UnmanagedElements: Sendable {
        var elements: [Element] = []
        var identities: [PersistedValue] = []
    }

    /// An empty, unmanaged set.
    public init() {
        storage = .unmanaged(Locked(UnmanagedElements()))
    }

    init(owner: CollectionOwner) {
        storage = .managed(owner)
    }

    /// Whether the set belongs to a store.
    public var isManaged: Bool { owner != nil }
    /// Whether the set is pinned to one version and never changes.
    public var isFrozen: Bool { owner?.frozen != nil }

    var snapshot: [Element] {
        storage.read(managed: { $0.elements(Element.self) }, unmanaged: { $0.elements })
    }

    /// An element's identity: an object by its key when managed (as a
    /// managed set stores it), else by reference; a value by value.
    ///
    /// Taken before the set's lock: reading an object's location takes the
    /// object's own lock.
    private func identity(_ element: Element) -> PersistedValue {
        if let object = element as? ObjectBase {
            if let location = object.location { return .link(location.key) }
            return .int(Int64(ObjectIdentifier(object).hashValue))
        }
        if let primitive = element as? any _PrimitivePersistable { return primitive._primitive }
        return .null
    }

    /// Whether the set holds `element`.
    public func contains(_ element: Element) -> Bool {
        let id = identity(element)
        return storage.read(managed: { storedElements($0.value(in: $0.state())).contains(id) },
                            unmanaged: { $0.identities.contains(id) })
    }

    /// Adds `element` if it is not already there.
    public func insert(_ element: Element) {
        let id = identity(element)
        storage.edit("insert", managed: { transaction, owner in
            transaction.apply(.setInsert(table: owner.table.index, key: owner.key, property: owner.property,
                                         value: element._toPersisted(in: owner.writeContext(transaction))))
        }, unmanaged: { set in
            guard !set.identities.contains(id) else { return }
            set.identities.append(id)
            set.elements.append(element)
        })
    }

    /// Removes `element` if it is there.
    public func remove(_ element: Element) {
        let id = identity(element)
        storage.read(managed: { owner in
            // An element that is not there is no change (not a write outside
            // a transaction): checked before asking for the write in progress.
            guard storedElements(owner.value(in: owner.state())).contains(id) else { return }
            let transaction = owner.transaction("remove")
            transaction.apply(.setRemove(table: owner.table.index, key: owner.key, property: owner.property,
                                         value: element._toPersisted(in: owner.writeContext(transaction))))
        }, unmanaged: { set in
            guard let index = set.identities.firstIndex(of: id) else { return }
            set.identities.remove(at: index)
            set.elements.remove(at: index)
        })
    }

    /// Removes every element.
    public func removeAll() {
        storage.edit("removeAll", managed: { transaction, owner in
            transaction.apply(.clear(table: owner.table.index, key: owner.key, property: owner.property))
        }, unmanaged: { $0 = UnmanagedElements() })
    }

    /// Inserts every element of `other`.
    public func formUnion<S: Sequence>(_ other: S) where S.Element == Element {
        for element in other { insert(element) }
    }

    /// Keeps only the elements that `other` also holds.
    public func formIntersection<S: Sequence>(_ other: S) where S.Element == Element {
        let keep = MutableSet()
        keep.formUnion(other)
        for element in snapshot where !keep.contains(element) { remove(element) }
    }

    /// Removes every element of `other`.
    public func subtract<S: Sequence>(_ other: S) where S.Element == Element {
        for element in other { remove(element) }
    }

    /// Whether every element of this set is in `other`.
    public func isSubset(of other: MutableSet<Element>) -> Bool {
        snapshot.allSatisfy { other.contains($0) }
    }

    /// Whether the sets share at least one element.
    public func intersects(_ other: MutableSet<Element>) -> Bool {
        snapshot.contains { other.contains($0) }
    }
}

extension MutableSet: RandomAccessCollection {
    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of elements.
    public var endIndex: Int { storage.read(managed: { $0.count }, unmanaged: { $0.elements.count }) }
    /// The element at `position` in insertion order.
    public subscript(position: Int) -> Element { snapshot[position] }
    /// Iterates over one snapshot of the set, read when iteration starts.
    public func makeIterator() -> IndexingIterator<[Element]> { snapshot.makeIterator() }
}

extension MutableSet: _PersistableProperty {
    public static var _propertyKind: _PropertyKind { propertyKind(.set, of: Element._valueKind) }
    public static func _read(_ value: PersistedValue, in context: _ReadContext) -> MutableSet<Element> { managed(in: context) }
    public func _write(in context: _WriteContext) -> PersistedValue {
        var seen = Set<PersistedValue>()
        return .set(snapshot.map { $0._toPersisted(in: context) }.filter { seen.insert($0).inserted })
    }
    public static func _makeDefault() -> MutableSet<Element> { MutableSet() }
    public static func _recordingValue(_ recording: _Recording) -> MutableSet<Element>? { nil }
}
