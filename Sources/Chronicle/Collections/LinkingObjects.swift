/// An inverse relationship: the objects whose `originProperty` links to
/// this one, declared as
/// `@Persisted(originProperty: "dogs") var person: LinkingObjects<Person>`.
///
/// Linking objects are computed from the links, so they are always current
/// and cannot be changed directly: change the origin property instead.
///
/// - Complexity: O(*r*) in the number of objects linking to this one.
public struct LinkingObjects<Element: ObjectBase>: Sendable {
    /// The property of `Element` that links here.
    public let propertyName: String
    let target: (table: TableBinding, key: ObjectKey, frozen: StoreState?)?
    /// Kept strongly: the table binding references the store unowned.
    private let store: Store?

    init(unmanagedOriginProperty: String) {
        propertyName = unmanagedOriginProperty
        target = nil
        store = nil
    }

    init(originProperty: String, table: TableBinding, key: ObjectKey, frozen: StoreState?) {
        propertyName = originProperty
        target = (table, key, frozen)
        store = table.store
    }

    /// The linking objects, in order of their keys, read from one state.
    var snapshot: [Element] {
        guard let target, let store else { return [] }
        let state = target.frozen ?? store.readableState()
        guard let origin = store.tableBinding(for: Element.self, in: state) else { return [] }
        let reading = HandleReading.frozen(in: target.frozen)
        return keys(in: state).map { store.handle(Element.self, table: origin, key: $0, reading) }
    }

    /// The keys of the linking objects in `state`, ascending, each once.
    func keys(in state: StoreState) -> [ObjectKey] {
        guard let target, let store, let origin = store.tableBinding(for: Element.self, in: state),
              let property = origin.property(named: propertyName) else { return [] }
        var seen = Set<ObjectKey>()
        return state.backlinks(table: target.table.index, key: target.key)
            .filter { $0.table == origin.index && $0.property == property }
            .map(\.key)
            .sorted()
            .filter { seen.insert($0).inserted }
    }
}

extension LinkingObjects: RandomAccessCollection {
    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of elements.
    public var endIndex: Int { snapshot.count }
    /// The element at `position`.
    public subscript(position: Int) -> Element { snapshot[position] }
    /// Iterates over one snapshot, read when iteration starts.
    public func makeIterator() -> IndexingIterator<[Element]> { snapshot.makeIterator() }
}

extension LinkingObjects: _PersistableProperty {
    public static var _propertyKind: _PropertyKind {
        _PropertyKind(type: .object, objectType: Element.self, isLinkingObjects: true)
    }
    public static func _read(_ value: PersistedValue, in context: _ReadContext) -> LinkingObjects<Element> {
        let origin = context.table.metadata.properties[context.ordinal].options.originProperty ?? ""
        return LinkingObjects(originProperty: origin, table: context.table, key: context.key, frozen: context.frozen)
    }
    public func _write(in context: _WriteContext) -> PersistedValue { .null }
    public static func _makeDefault() -> LinkingObjects<Element> { LinkingObjects(unmanagedOriginProperty: "") }
    public static func _recordingValue(_ recording: _Recording) -> LinkingObjects<Element>? { nil }
}
