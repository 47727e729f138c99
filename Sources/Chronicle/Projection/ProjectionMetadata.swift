import Synchronization

/// What a projection type projects: each property's name, key path and the
/// persisted properties it depends on. Worked out once per projection type,
/// by reflecting over one instance built on a key-path recording object.
final class ProjectionMetadata: @unchecked Sendable {
    // Safety: immutable after init; key paths are immutable values.
    struct Property {
        /// The projection's property name, e.g. `homeCity`.
        let name: String
        /// The key path on the base object, e.g. `\Person.address?.city`.
        let keyPath: AnyKeyPath
        /// The persisted properties that key path reads.
        let recorded: RecordedKeyPath
        /// Reads the projected value from a base object.
        let read: (ObjectBase) -> any Sendable
    }

    let properties: [Property]
    /// Whether the projection class stores nothing but `@Projected`
    /// properties (and its base object), so that an iteration may move a
    /// projection nobody else holds to the next object by moving its base
    /// handle (see `Results.Iterator`).
    let allowsReuse: Bool
    private let byName: [String: Int]

    private init(properties: [Property], allowsReuse: Bool) {
        self.properties = properties
        self.allowsReuse = allowsReuse
        byName = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.name, $0) })
    }

    func property(named name: String) -> Property? { byName[name].map { properties[$0] } }

    func name(of keyPath: AnyKeyPath) -> String? { properties.first { $0.keyPath == keyPath }?.name }

    /// Every persisted path any projected property reads.
    var dependencies: Set<[String]> { Set(properties.flatMap(\.recorded.dependencies)) }

    private static let cache = Locked<[ObjectIdentifier: ProjectionMetadata]>([:])

    /// The metadata of a projection type.
    ///
    /// - Complexity: O(1) after the first call for a type.
    static func of(_ type: any _ObjectProjecting.Type) -> ProjectionMetadata {
        let id = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[id] }) { return cached }
        let recorder = KeyPathRecorder()
        let instance = type._project(KeyPathMapping.makeRecordingInstance(type._rootType, recorder: recorder, prefix: []))
        var properties: [Property] = []
        var storesOnlyProjected = true
        var mirror: Mirror? = Mirror(reflecting: instance)
        while let current = mirror {
            // The last mirror is `Projection`'s own, which stores the base object.
            let isBaseClass = current.superclassMirror == nil
            for child in current.children {
                guard let wrapper = child.value as? any ProjectedWrapper, let label = child.label else {
                    if !isBaseClass { storesOnlyProjected = false }
                    continue
                }
                let name = label.hasPrefix("_") ? String(label.dropFirst()) : label
                do {
                    properties.append(Property(name: name, keyPath: wrapper.anyKeyPath,
                                               recorded: try KeyPathMapping.record(wrapper.anyKeyPath),
                                               read: { wrapper.read($0) }))
                } catch {
                    preconditionFailure("Chronicle: \(type).\(name): \(error)")
                }
            }
            mirror = current.superclassMirror
        }
        let metadata = ProjectionMetadata(properties: properties, allowsReuse: storesOnlyProjected)
        return cache.withLock { cache in
            if let raced = cache[id] { return raced }
            cache[id] = metadata
            return metadata
        }
    }
}
