import Synchronization

/// An ordered to-many relationship or list of values, declared as
/// `@Persisted var dogs: List<Dog>`.
///
/// A managed list is live: it always reads the store's current state. Its
/// mutating methods work only inside a write, and each becomes a list event
/// in the journal. A list of an object that was never added is a plain
/// in-memory list.
///
/// - Complexity: Reading an element is O(log *n*) in the number of objects of
///   the owner's type; edits are O(*k*) in the list's length.
public final class List<Element: _PersistableValue>: @unchecked Sendable {
    // Safety: managed lists hold only immutable references; an unmanaged
    // list's elements are behind a mutex.
    let storage: CollectionStorage<[Element]>
    /// Set on lists handed out by key-path recording instances.
    let recording: _Recording?

    /// An empty, unmanaged list.
    public init() {
        storage = .unmanaged(Locked([]))
        recording = nil
    }

    init(owner: CollectionOwner) {
        storage = .managed(owner)
        recording = nil
    }

    init(recording: _Recording) {
        storage = .unmanaged(Locked([]))
        self.recording = recording
    }

    /// Whether this list belongs to a store.
    public var isManaged: Bool { owner != nil }

    /// Whether the list is pinned to one version and never changes.
    public var isFrozen: Bool { owner?.frozen != nil }

    /// The elements, read once from one state.
    var snapshot: [Element] {
        storage.read(managed: { $0.elements(Element.self) }, unmanaged: { $0 })
    }

    // MARK: Mutation

    private func edit(_ operation: String, managed: (Transaction, CollectionOwner) -> Void, unmanaged: (inout [Element]) -> Void) {
        storage.edit(operation, managed: managed, unmanaged: unmanaged)
    }

    private func persisted(_ element: Element, _ transaction: Transaction, _ owner: CollectionOwner) -> PersistedValue {
        element._toPersisted(in: owner.writeContext(transaction))
    }

    private func check(_ index: Int, _ count: Int, _ operation: String) {
        precondition(index >= 0 && index < count, "Chronicle: List.\(operation) index \(index) is out of bounds (count \(count))")
    }

    /// Appends an element.
    public func append(_ element: Element) {
        edit("append", managed: { transaction, owner in
            let count = storedElements(owner.value(in: transaction.state)).count
            transaction.apply(.listInsert(table: owner.table.index, key: owner.key, property: owner.property, index: count,
                                          value: persisted(element, transaction, owner)))
        }, unmanaged: { $0.append(element) })
    }

    /// Appends the elements of a sequence.
    public func append<S: Sequence>(contentsOf elements: S) where S.Element == Element {
        for element in elements { append(element) }
    }

    /// Inserts an element at `index`.
    public func insert(_ element: Element, at index: Int) {
        edit("insert", managed: { transaction, owner in
            let count = storedElements(owner.value(in: transaction.state)).count
            precondition(index >= 0 && index <= count, "Chronicle: List.insert index \(index) is out of bounds (count \(count))")
            transaction.apply(.listInsert(table: owner.table.index, key: owner.key, property: owner.property, index: index,
                                          value: persisted(element, transaction, owner)))
        }, unmanaged: { $0.insert(element, at: index) })
    }

    /// Removes the element at `index`.
    public func remove(at index: Int) {
        edit("remove", managed: { transaction, owner in
            check(index, storedElements(owner.value(in: transaction.state)).count, "remove(at:)")
            transaction.apply(.listRemove(table: owner.table.index, key: owner.key, property: owner.property, index: index))
        }, unmanaged: { $0.remove(at: index) })
    }

    /// Removes every element.
    public func removeAll() {
        edit("removeAll", managed: { transaction, owner in
            transaction.apply(.clear(table: owner.table.index, key: owner.key, property: owner.property))
        }, unmanaged: { $0.removeAll() })
    }

    /// Removes the last element.
    public func removeLast() { remove(at: count - 1) }

    /// Moves the element at `from` so that it ends up at index `to`.
    public func move(from: Int, to: Int) {
        edit("move", managed: { transaction, owner in
            let count = storedElements(owner.value(in: transaction.state)).count
            check(from, count, "move(from:to:)")
            check(to, count, "move(from:to:)")
            transaction.apply(.listMove(table: owner.table.index, key: owner.key, property: owner.property, from: from, to: to))
        }, unmanaged: { $0.insert($0.remove(at: from), at: to) })
    }

    /// Exchanges the elements at two indexes.
    public func swapAt(_ i: Int, _ j: Int) {
        guard i != j else { return }
        let (low, high) = (Swift.min(i, j), Swift.max(i, j))
        move(from: high, to: low)
        move(from: low + 1, to: high)
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, object: Element) {
        self[index] = object
    }

    /// The element at `index`; setting it replaces the element (inside a write).
    public subscript(position: Int) -> Element {
        get {
            let elements = snapshot
            check(position, elements.count, "subscript")
            return elements[position]
        }
        set {
            edit("subscript set", managed: { transaction, owner in
                check(position, storedElements(owner.value(in: transaction.state)).count, "subscript set")
                transaction.apply(.listReplace(table: owner.table.index, key: owner.key, property: owner.property,
                                               index: position, value: persisted(newValue, transaction, owner)))
            }, unmanaged: { $0[position] = newValue })
        }
    }
}

extension List: RandomAccessCollection {
    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of elements.
    public var endIndex: Int { storage.read(managed: { $0.count }, unmanaged: { $0.count }) }
    /// Iterates over one snapshot of the list, read when iteration starts.
    public func makeIterator() -> IndexingIterator<[Element]> { snapshot.makeIterator() }
}

extension List: _PersistableProperty {
    public static var _propertyKind: _PropertyKind { propertyKind(.list, of: Element._valueKind) }
    public static func _read(_ value: PersistedValue, in context: _ReadContext) -> List<Element> { managed(in: context) }
    public func _write(in context: _WriteContext) -> PersistedValue {
        .list(snapshot.map { $0._toPersisted(in: context) })
    }
    public static func _makeDefault() -> List<Element> { List() }
    public static func _recordingValue(_ recording: _Recording) -> List<Element>? {
        List(recording: recording)
    }
}

extension List: _RecordingCollection {
    var isRecording: Bool { recording != nil }
}
