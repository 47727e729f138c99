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
    let owner: CollectionOwner?
    private let unmanaged: Locked<[Element]>
    private let unmanagedKeys: Locked<[PersistedValue]>

    /// An empty, unmanaged set.
    public init() {
        owner = nil
        unmanaged = Locked([])
        unmanagedKeys = Locked([])
    }

    init(owner: CollectionOwner) {
        self.owner = owner
        unmanaged = Locked([])
        unmanagedKeys = Locked([])
    }

    /// Whether the set belongs to a store.
    public var isManaged: Bool { owner != nil }
    /// Whether the set is pinned to one version and never changes.
    public var isFrozen: Bool { owner?.frozen != nil }

    var snapshot: [Element] {
        guard let owner else { return unmanaged.withLock { $0 } }
        return owner.elements(Element.self)
    }

    /// An identity for unmanaged elements: objects by reference, values by value.
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
        guard let owner else {
            let id = identity(element)
            return unmanagedKeys.withLock { $0.contains(id) }
        }
        let state = owner.state()
        let stored = storedElements(owner.value(in: state))
        if let object = element as? ObjectBase {
            guard let location = object.location else { return false }
            return stored.contains(.link(location.key))
        }
        return stored.contains(identity(element))
    }

    /// Adds `element` if it is not already there.
    public func insert(_ element: Element) {
        if let owner {
            let transaction = owner.transaction("insert")
            transaction.apply(.setInsert(table: owner.table.index, key: owner.key, property: owner.property,
                                         value: element._toPersisted(in: owner.writeContext(transaction))))
        } else {
            let id = identity(element)
            let isNew = unmanagedKeys.withLock { keys in
                if keys.contains(id) { return false }
                keys.append(id)
                return true
            }
            if isNew { unmanaged.withLock { $0.append(element) } }
        }
    }

    /// Removes `element` if it is there.
    public func remove(_ element: Element) {
        if let owner {
            guard contains(element) else { return }
            let transaction = owner.transaction("remove")
            transaction.apply(.setRemove(table: owner.table.index, key: owner.key, property: owner.property,
                                         value: element._toPersisted(in: owner.writeContext(transaction))))
        } else {
            let id = identity(element)
            guard let index = unmanagedKeys.withLock({ $0.firstIndex(of: id) }) else { return }
            unmanagedKeys.withLock { _ = $0.remove(at: index) }
            unmanaged.withLock { _ = $0.remove(at: index) }
        }
    }

    /// Removes every element.
    public func removeAll() {
        if let owner {
            let transaction = owner.transaction("removeAll")
            transaction.apply(.clear(table: owner.table.index, key: owner.key, property: owner.property))
        } else {
            unmanaged.withLock { $0.removeAll() }
            unmanagedKeys.withLock { $0.removeAll() }
        }
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
    public var endIndex: Int {
        guard let owner else { return unmanaged.withLock { $0.count } }
        return owner.count
    }
    /// The element at `position` in insertion order.
    public subscript(position: Int) -> Element { snapshot[position] }
    /// Iterates over one snapshot of the set, read when iteration starts.
    public func makeIterator() -> IndexingIterator<[Element]> { snapshot.makeIterator() }
}

extension MutableSet: _PersistableProperty {
    public static var _propertyKind: _PropertyKind {
        var kind = Element._valueKind
        kind.collection = .set
        return kind
    }
    public static func _read(_ value: PersistedValue, in context: _ReadContext) -> MutableSet<Element> {
        MutableSet(owner: CollectionOwner(table: context.table, key: context.key, property: context.property, frozen: context.frozenState))
    }
    public func _write(in context: _WriteContext) -> PersistedValue {
        var seen = Set<PersistedValue>()
        return .set(snapshot.map { $0._toPersisted(in: context) }.filter { seen.insert($0).inserted })
    }
    public static func _makeDefault() -> MutableSet<Element> { MutableSet() }
    public static func _recordingValue(_ recording: _Recording) -> MutableSet<Element>? { nil }
}
