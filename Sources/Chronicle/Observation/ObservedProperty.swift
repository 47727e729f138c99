/// One property an observer reports: its name, the persisted paths it
/// depends on, and how to read its reported value from a root object.
struct ObservedProperty: @unchecked Sendable {
    // Safety: `read` captures only immutable key paths and metadata.
    let name: String
    /// Persisted paths from the root object, e.g. `["dogs"], ["dogs", "name"]`.
    let dependencies: [[String]]
    let read: (ObjectBase) -> (any Sendable)?
    /// For a `@Persisted` property of the observed class itself (not a
    /// projection's): its ordinal, so that an observer converts its values
    /// straight from the object's records, making no handle (see
    /// ``ObjectObserver``).
    var ordinal: Int? = nil
}

enum ObservedProperties {
    /// The properties an observer of `type` reports for `keyPaths` (names,
    /// dotted for nested paths). No key paths: every persisted property of
    /// an object, or every projected property of a projection.
    static func resolve(_ keyPaths: [String], for type: any _ObjectProjecting.Type) throws(ObservationError) -> [ObservedProperty] {
        if type is ObjectBase.Type {
            return try objectProperties(keyPaths, metadata: ClassMetadata.known(type._rootType))
        }
        return try projectionProperties(keyPaths, for: type)
    }

    private static func objectProperties(_ keyPaths: [String], metadata: ClassMetadata) throws(ObservationError) -> [ObservedProperty] {
        let paths: [[String]] = keyPaths.isEmpty
            ? metadata.properties.filter { !$0.kind.isLinkingObjects }.map { [$0.name] }
            : keyPaths.map { $0.split(separator: ".").map(String.init) }
        var order: [String] = []
        var dependencies: [String: [[String]]] = [:]
        for path in paths {
            try validate(path, from: metadata, original: path.joined(separator: "."))
            let top = path[0]
            if dependencies[top] == nil { order.append(top) }
            for length in 1...path.count where !(dependencies[top]?.contains(Array(path.prefix(length))) ?? false) {
                dependencies[top, default: []].append(Array(path.prefix(length)))
            }
        }
        return order.map { name in
            let ordinal = metadata.ordinalByName[name]!
            let reader = metadata.readers[ordinal]
            return ObservedProperty(name: name, dependencies: dependencies[name]!, read: { reader($0, ordinal) }, ordinal: ordinal)
        }
    }

    private static func validate(_ path: [String], from metadata: ClassMetadata, original: String) throws(ObservationError) {
        var current = metadata
        for (depth, component) in path.enumerated() {
            guard let ordinal = current.ordinalByName[component], !current.properties[ordinal].kind.isLinkingObjects else {
                throw .unknownKeyPath(original, type: metadata.name)
            }
            if depth < path.count - 1 {
                guard let next = current.properties[ordinal].kind.objectType else {
                    throw .unknownKeyPath(original, type: metadata.name)
                }
                current = ClassMetadata.known(next)
            }
        }
    }

    private static func projectionProperties(_ keyPaths: [String], for type: any _ObjectProjecting.Type) throws(ObservationError) -> [ObservedProperty] {
        let metadata = ProjectionMetadata.of(type)
        let chosen: [ProjectionMetadata.Property]
        if keyPaths.isEmpty {
            chosen = metadata.properties
        } else {
            var list: [ProjectionMetadata.Property] = []
            for name in keyPaths {
                guard let property = metadata.property(named: name) else {
                    throw .unknownKeyPath(name, type: "\(type)")
                }
                list.append(property)
            }
            chosen = list
        }
        return chosen.map { property in
            ObservedProperty(name: property.name, dependencies: property.recorded.dependencies, read: property.read)
        }
    }

    /// The names of typed key paths rooted at a collection's element type.
    static func names<Root>(of keyPaths: [PartialKeyPath<Root>]) -> [String] {
        guard !keyPaths.isEmpty else { return [] }
        let root: Any.Type = (Root.self as? any OptionalObjectRoot.Type)?.wrappedObjectType ?? Root.self
        guard let type = root as? any _ObjectProjecting.Type else {
            preconditionFailure("Chronicle: \(Root.self) values have no properties to observe; observe the collection without key paths")
        }
        return keyPaths.flatMap { names(of: $0, for: type) }
    }

    /// The names a typed key path observes: for an object, every persisted
    /// path it reads that is not a prefix of another (`\.fullName`, computed
    /// from `firstName` and `lastName`, observes both); for a projection,
    /// the projected property.
    static func names(of keyPath: AnyKeyPath, for type: any _ObjectProjecting.Type) -> [String] {
        guard type is ObjectBase.Type else { return [name(of: keyPath, for: type)] }
        let dependencies = recorded(keyPath, for: type).dependencies
        return dependencies.filter { path in
            !dependencies.contains { $0.count > path.count && Array($0.prefix(path.count)) == path }
        }.map { $0.joined(separator: ".") }
    }

    private static func recorded(_ keyPath: AnyKeyPath, for type: any _ObjectProjecting.Type) -> RecordedKeyPath {
        do { return try KeyPathMapping.record(keyPath) } catch {
            preconditionFailure("Chronicle: cannot observe this key path: \(error)")
        }
    }

    /// The name a typed key path has in an observation: the persisted path
    /// for an object, the projected property's name for a projection.
    static func name(of keyPath: AnyKeyPath, for type: any _ObjectProjecting.Type) -> String {
        let recorded = recorded(keyPath, for: type)
        if type is ObjectBase.Type { return recorded.dottedPath }
        // A projected property is found by what its key path reads; two
        // projected properties over the same key path are interchangeable.
        let metadata = ProjectionMetadata.of(type)
        guard let match = metadata.properties.first(where: { $0.recorded == recorded }) else {
            preconditionFailure("Chronicle: \(KeyPathMapping.describe(keyPath)) is not a projected property of \(type)")
        }
        return match.name
    }
}
