/// The ``CollectionSource``s of each collection type.
enum CollectionSources {
    /// Whether any observed property of object `key` of `table` changed.
    static func changed(_ properties: [ObservedProperty], table: Int, key: ObjectKey,
                        changes: ChangeSet, old: StoreState, new: StoreState) -> Bool {
        properties.contains { property in
            property.dependencies.contains {
                ChangePaths.changed($0[...], table: table, key: key, changes: changes, old: old, new: new)
            }
        }
    }

    /// The objects of `table` that a commit may have changed through the
    /// given paths: modified themselves, or linking (up to `depth` links
    /// away) to a modified or deleted object.
    static func candidates(in table: Int, depth: Int, changes: ChangeSet, old: StoreState, new: StoreState) -> Set<ObjectKey> {
        var result = Set<ObjectKey>()
        var frontier: [TableKey] = changes.modifications.map { TableKey(table: $0.table, key: $0.key) } + changes.deletions
        for object in frontier where object.table == table { result.insert(object.key) }
        var seen = Set(frontier)
        for _ in 0..<max(0, depth - 1) {
            var next: [TableKey] = []
            for object in frontier {
                for state in [old, new] {
                    for link in state.backlinks(table: object.table, key: object.key) {
                        let origin = TableKey(table: link.table, key: link.key)
                        guard seen.insert(origin).inserted else { continue }
                        if origin.table == table { result.insert(origin.key) }
                        next.append(origin)
                    }
                }
            }
            frontier = next
        }
        return result
    }

    /// Tables that hold `type`'s objects and every type it links to.
    static func tables(reachableFrom type: ObjectBase.Type, in state: StoreState) -> Set<Int> {
        var tables = Set<Int>()
        var pending = [ClassMetadata.known(type)]
        var visited = Set<ObjectIdentifier>()
        while let metadata = pending.popLast() {
            guard visited.insert(ObjectIdentifier(metadata.type)).inserted else { continue }
            if let index = state.tableIndex(named: metadata.name) { tables.insert(index) }
            pending.append(contentsOf: metadata.linkedTypes.map { ClassMetadata.known($0) })
        }
        return tables
    }

    /// Elements of an object-valued collection that a commit modified.
    static func modifiedElements(_ elements: Set<PersistedValue>, table: Int?, properties: [ObservedProperty],
                                 changes: ChangeSet, old: StoreState, new: StoreState) -> Set<PersistedValue> {
        guard let table else { return [] }
        let depth = properties.flatMap(\.dependencies).map(\.count).max() ?? 1
        let touched = candidates(in: table, depth: depth, changes: changes, old: old, new: new)
        return Set(touched.compactMap { key in
            let identity = PersistedValue.link(key)
            guard elements.contains(identity),
                  changed(properties, table: table, key: key, changes: changes, old: old, new: new) else { return nil }
            return identity
        })
    }

    /// A source over a list or set property.
    static func ownedCollection(_ owner: CollectionOwner, elementType: ObjectBase.Type?, properties: [ObservedProperty]) -> CollectionSource {
        CollectionSource(
            elements: { state in storedElements(owner.value(in: state)) },
            interest: { state in
                var interest = ObserverInterest(objects: [TableKey(table: owner.table.index, key: owner.key)])
                if let elementType { interest.tables = tables(reachableFrom: elementType, in: state) }
                return interest
            },
            modified: { changes, old, new in
                guard let elementType else { return [] }
                let elements = Set(storedElements(owner.value(in: new)))
                let table = new.tableIndex(named: ClassMetadata.known(elementType).name)
                return modifiedElements(elements, table: table, properties: properties, changes: changes, old: old, new: new)
            })
    }

    static func requireLive(_ owner: CollectionOwner?, _ what: String) -> CollectionOwner {
        guard let owner else {
            preconditionFailure("Chronicle: only managed collections can be observed; this \(what) belongs to an object that was never added to a store")
        }
        precondition(owner.frozen == nil, "Chronicle: a frozen \(what) never changes and cannot be observed; observe the live collection (thaw())")
        return owner
    }

    /// The observed properties of a collection's elements of type
    /// `Element` (an object type, or an optional one).
    static func elementProperties<Element: _PersistableValue>(_ keyPaths: [String], _: Element.Type) throws(ObservationError) -> [ObservedProperty] {
        guard let objectType = Element._valueKind.objectType else {
            guard keyPaths.isEmpty else { throw .unknownKeyPath(keyPaths[0], type: "\(Element.self)") }
            return []
        }
        return try ObservedProperties.resolve(keyPaths, for: objectType)
    }
}

extension Results {
    /// A stream of this query's changes: `.initial(results)`, then
    /// `.update(results, deletions:insertions:modifications:)` for each batch
    /// of commits. An object that starts or stops matching is an insertion
    /// or a deletion. Key paths are property names (`"dogs.name"`) of the
    /// elements; see ``CollectionChanges`` for the semantics.
    ///
    /// - Precondition: the results are not frozen.
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func changes(keyPaths: [String]) throws(ObservationError) -> CollectionChanges<Results<Element>> {
        precondition(frozen == nil, "Chronicle: frozen Results never change and cannot be observed; observe thaw()")
        let properties = try ObservedProperties.resolve(keyPaths, for: Element.self)
        let results = self
        let rootType = Element._rootType
        let source = CollectionSource(
            elements: { state in
                guard let table = results.store.tableBinding(for: rootType, in: state) else { return [] }
                return results.query.evaluate(in: state, table: table, frozen: nil).keys.map { .link($0) }
            },
            interest: { state in
                let tables = CollectionSources.tables(reachableFrom: rootType, in: state)
                // Until the type has its table, learn it from schema changes.
                let hasTable = state.tableIndex(named: ClassMetadata.known(rootType).name) != nil
                return ObserverInterest(tables: tables, schemaChanges: !hasTable)
            },
            modified: { changes, old, new in
                let table = new.tableIndex(named: ClassMetadata.known(rootType).name)
                let all = Set(changes.modifications.filter { $0.table == table }.map { PersistedValue.link($0.key) })
                    .union(CollectionSources.candidates(in: table ?? -1, depth: 4, changes: changes, old: old, new: new).map { .link($0) })
                return CollectionSources.modifiedElements(all, table: table, properties: properties, changes: changes, old: old, new: new)
            })
        return CollectionChanges.make(store: store, collection: self, source: source)
    }
}

extension List {
    /// A stream of this list's changes; see ``CollectionChanges``. Key paths
    /// name properties of the elements (for lists of objects).
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func changes(keyPaths: [String]) throws(ObservationError) -> CollectionChanges<List<Element>> {
        let owner = CollectionSources.requireLive(owner, "List")
        let properties = try CollectionSources.elementProperties(keyPaths, Element.self)
        let source = CollectionSources.ownedCollection(owner, elementType: Element._valueKind.objectType, properties: properties)
        return CollectionChanges.make(store: owner.store, collection: self, source: source)
    }
}

extension MutableSet {
    /// A stream of this set's changes (indexes in insertion order); see
    /// ``CollectionChanges``.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func changes(keyPaths: [String]) throws(ObservationError) -> CollectionChanges<MutableSet<Element>> {
        let owner = CollectionSources.requireLive(owner, "MutableSet")
        let properties = try CollectionSources.elementProperties(keyPaths, Element.self)
        let source = CollectionSources.ownedCollection(owner, elementType: Element._valueKind.objectType, properties: properties)
        return CollectionChanges.make(store: owner.store, collection: self, source: source)
    }
}

extension Map {
    /// A stream of this map's changes, with indexes in key order (the
    /// order the map iterates in): a new key is an insertion, a removed key
    /// a deletion, a new value for a key a modification. For a map of
    /// objects, key paths name properties of the values (`"name"`), and a
    /// change to one of them on a value is a modification too; without key
    /// paths, any of the value's own properties. See ``CollectionChanges``.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func changes(keyPaths: [String]) throws(ObservationError) -> CollectionChanges<Map<Key, Value>> {
        let owner = CollectionSources.requireLive(owner, "Map")
        let properties = try CollectionSources.elementProperties(keyPaths, Value.self)
        let valueType = Value._valueKind.objectType
        @Sendable func entries(_ state: StoreState) -> [MapEntry] {
            if case .map(let entries)? = owner.value(in: state) { return entries }
            return []
        }
        let source = CollectionSource(
            elements: { state in entries(state).map { .string($0.key) } },
            interest: { state in
                var interest = ObserverInterest(objects: [TableKey(table: owner.table.index, key: owner.key)])
                if let valueType { interest.tables = CollectionSources.tables(reachableFrom: valueType, in: state) }
                return interest
            },
            modified: { changes, old, new in
                let before = Dictionary(entries(old).map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
                let current = entries(new)
                var modified = Set(current.filter { entry in before[entry.key].map { $0 != entry.value } ?? false }.map { PersistedValue.string($0.key) })
                guard let valueType else { return modified }
                let table = new.tableIndex(named: ClassMetadata.known(valueType).name)
                let touched = CollectionSources.modifiedElements(Set(current.map(\.value)), table: table, properties: properties,
                                                                 changes: changes, old: old, new: new)
                for entry in current where touched.contains(entry.value) { modified.insert(.string(entry.key)) }
                return modified
            })
        return CollectionChanges.make(store: owner.store, collection: self, source: source)
    }
}

extension LinkingObjects {
    /// A stream of changes to the set of objects linking here; see
    /// ``CollectionChanges``. Key paths name properties of `Element`.
    ///
    /// - Throws: ``ObservationError/unknownKeyPath(_:type:)``.
    public func changes(keyPaths: [String]) throws(ObservationError) -> CollectionChanges<LinkingObjects<Element>> {
        guard let target else {
            preconditionFailure("Chronicle: only managed LinkingObjects can be observed")
        }
        precondition(target.frozen == nil, "Chronicle: frozen LinkingObjects never change and cannot be observed")
        let properties = try ObservedProperties.resolve(keyPaths, for: Element.self)
        let me = self
        let source = CollectionSource(
            elements: { state in me.keys(in: state).map { .link($0) } },
            interest: { state in
                ObserverInterest(objects: [TableKey(table: target.table.index, key: target.key)],
                                 tables: CollectionSources.tables(reachableFrom: Element.self, in: state))
            },
            modified: { changes, old, new in
                let table = new.tableIndex(named: ClassMetadata.known(Element.self).name)
                return CollectionSources.modifiedElements(Set(me.keys(in: new).map { .link($0) }), table: table,
                                                          properties: properties, changes: changes, old: old, new: new)
            })
        return CollectionChanges.make(store: target.table.store, collection: self, source: source)
    }
}

extension ProjectedCollection {
    /// Calls `block` on the main actor with each change to this mapped
    /// collection, as `observe(keyPaths:_:)` does on ``Results``; see
    /// ``changes()``.
    public func observe(_ block: @escaping @MainActor (CollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        .deliveringOnMainActor(changes(), to: block)
    }

    /// Calls `block` on `actor` with each change to this mapped collection,
    /// as `observe(keyPaths:on:_:)` does on ``Results``.
    public func observe(on actor: isolated any Actor,
                        _ block: @escaping (CollectionChange<ProjectedCollection<Element>>) -> Void) -> NotificationToken {
        .delivering(changes(), on: actor, to: block)
    }

    /// A stream of this mapped collection's changes. An element is modified
    /// when the mapped property of the underlying object changes.
    public func changes() -> CollectionChanges<ProjectedCollection<Element>> {
        let owner = CollectionSources.requireLive(owner, "ProjectedCollection")
        let elementType = owner.table.metadata.properties
            .first { owner.table.property(named: $0.name) == owner.property }?.kind.objectType
        let path = memberPath ?? []
        let properties = path.isEmpty ? [] : [ObservedProperty(name: path.joined(separator: "."), dependencies: (1...path.count).map { Array(path.prefix($0)) }) { _ in nil }]
        let source = CollectionSources.ownedCollection(owner, elementType: elementType, properties: properties)
        return CollectionChanges.make(store: owner.store, collection: self, source: source)
    }
}
