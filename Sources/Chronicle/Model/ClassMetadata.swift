import Synchronization

/// What Chronicle knows about a model class: its schema and how its
/// `@Persisted` wrappers map to properties. Discovered once per class, by
/// reflecting over a prototype instance, and cached.
final class ClassMetadata: Sendable {
    struct Property: Sendable {
        let name: String
        let kind: _PropertyKind
        let options: PersistedOptions
        /// Reads this property of an object of the class, typed as declared.
        let read: @Sendable (ObjectBase, Int) -> any Sendable
        /// Converts a stored value of this property to its declared type, as
        /// ``read`` does with the value it finds in the object's record.
        let convert: @Sendable (PersistedValue, _ReadContext) -> any Sendable
    }

    let type: ObjectBase.Type
    let name: String
    let isEmbedded: Bool
    /// Every `@Persisted` property, by ordinal (linking objects included).
    let properties: [Property]
    /// The persisted properties as the journal records them, in ordinal order.
    let schema: TypeSchema
    /// For each ordinal, its index in ``schema`` (−1 for linking objects).
    let schemaIndexByOrdinal: [Int]
    let ordinalByName: [String: Int]
    /// Whether the class (and every superclass up to ``Object`` or
    /// ``EmbeddedObject``) stores nothing but `@Persisted` properties, so
    /// that a live handle of it is only its location: an iteration may
    /// then point a handle nobody else holds at the next object instead of
    /// making another (see ``ObjectBase/isRelocatable``). A class with any
    /// other stored property — `var cache = [String]()`, a `lazy var` — gets
    /// a new handle per element, its initial values fresh each time.
    let allowsHandleReuse: Bool
    /// For each ordinal, the value a new instance holds as stored, when it
    /// differs from the type's zero: the declared initial value
    /// (`@Persisted var color = "brown"`) that objects existing before the
    /// property was added read (see ``PropertySchema/declaredDefault``).
    /// Only plain values (and optionals of them) have one.
    let declaredDefaults: [PersistedValue?]

    /// For each ordinal, a reader of that property's Swift value.
    var readers: [@Sendable (ObjectBase, Int) -> any Sendable] { properties.map(\.read) }

    var primaryKeyOrdinal: Int? { properties.firstIndex { $0.options.isPrimaryKey } }

    func propertyName(ordinal: Int) -> String { properties[ordinal].name }

    /// The model classes this one links to (to-one, collections, linking objects).
    var linkedTypes: [ObjectBase.Type] { properties.compactMap(\.kind.objectType) }

    private init(type: ObjectBase.Type, name: String, isEmbedded: Bool, properties: [Property], allowsHandleReuse: Bool,
                 declaredDefaults: [PersistedValue?]) {
        self.type = type
        self.declaredDefaults = declaredDefaults
        self.allowsHandleReuse = allowsHandleReuse
        self.name = name
        self.isEmbedded = isEmbedded
        self.properties = properties
        var schemaProperties: [PropertySchema] = []
        var indexByOrdinal: [Int] = []
        for property in properties {
            if property.kind.isLinkingObjects {
                indexByOrdinal.append(-1)
                continue
            }
            indexByOrdinal.append(schemaProperties.count)
            schemaProperties.append(PropertySchema(
                name: property.name, type: property.kind.type,
                objectType: property.kind.objectType.map { ClassMetadata.typeName($0) },
                collection: property.kind.collection, isOptional: property.kind.isOptional,
                isPrimaryKey: property.options.isPrimaryKey, isIndexed: property.options.isIndexed))
        }
        schema = TypeSchema(name: name, isEmbedded: isEmbedded, properties: schemaProperties)
        schemaIndexByOrdinal = indexByOrdinal
        ordinalByName = Dictionary(uniqueKeysWithValues: properties.enumerated().map { ($1.name, $0) })
    }

    static func typeName(_ type: ObjectBase.Type) -> String { String(describing: type) }

    private static func zero(of property: Property) -> PersistedValue {
        PropertySchema(name: property.name, type: property.kind.type, isOptional: property.kind.isOptional).zeroValue
    }

    /// The schema of the property named `name` as an ``Event/addProperty(table:_:)``
    /// records it: with the class's declared default.
    func propertyToAdd(_ property: PropertySchema) -> PropertySchema {
        var property = property
        if let ordinal = ordinalByName[property.name] { property.declaredDefault = declaredDefaults[ordinal] }
        return property
    }

    // MARK: Cache

    private static let cache = Locked<[ObjectIdentifier: ClassMetadata]>([:])

    /// The metadata of `type`, discovering it on first use.
    ///
    /// - Complexity: O(1) after the first call for a class.
    static func of(_ type: ObjectBase.Type) throws(SchemaError) -> ClassMetadata {
        let id = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[id] }) { return cached }
        let discovered = try discover(type)
        return cache.withLock { cache in
            if let raced = cache[id] { return raced }
            cache[id] = discovered
            return discovered
        }
    }

    /// The metadata of a class whose schema was already validated.
    static func known(_ type: ObjectBase.Type) -> ClassMetadata {
        do { return try of(type) } catch {
            preconditionFailure("Chronicle: \(error)")
        }
    }

    private static func discover(_ type: ObjectBase.Type) throws(SchemaError) -> ClassMetadata {
        let name = typeName(type)
        let prototype = ConstructionFrame.makeInternal(type)
        let options = ConstructionFrame.current.lastTakenOptions
        let count = prototype.unmanagedStorage.count

        var found: [(ordinal: Int, name: String, wrapper: any PersistedWrapper.Type)] = []
        var storesOnlyPersisted = true
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror, current.subjectType != ObjectBase.self {
            for child in current.children {
                guard let wrapper = child.value as? any PersistedWrapper, let label = child.label else {
                    storesOnlyPersisted = false
                    continue
                }
                let propertyName = label.hasPrefix("_") ? String(label.dropFirst()) : label
                found.append((wrapper.ordinal, propertyName, Swift.type(of: wrapper)))
            }
            mirror = current.superclassMirror
        }
        found.sort { $0.ordinal < $1.ordinal }
        guard found.map(\.ordinal) == Array(0..<count), options.count == count else {
            throw .unsupportedProperty(type: name, property: found.first?.name ?? "?",
                reason: "its @Persisted properties were not initialised in order; a @Persisted default value must not create another Object (use nil)")
        }

        let isEmbedded = type is EmbeddedObject.Type
        var properties: [Property] = []
        for entry in found {
            let property = Property(name: entry.name, kind: entry.wrapper.kind, options: options[entry.ordinal],
                                    read: entry.wrapper.reader, convert: entry.wrapper.converter)
            try validate(property, of: name)
            properties.append(property)
        }
        let keys = properties.filter(\.options.isPrimaryKey).map(\.name)
        if keys.count > 1 { throw .multiplePrimaryKeys(type: name, properties: keys) }
        if isEmbedded, let key = keys.first { throw .embeddedPrimaryKey(type: name, property: key) }
        let initialValues = Array(prototype.unmanagedStorage.allValues())
        let declaredDefaults = zip(properties, initialValues).map { property, value -> PersistedValue? in
            guard !property.kind.isLinkingObjects, property.kind.collection == .none,
                  let stored = (value as? any _PrimitivePersistable)?._primitive ?? (value as? any _OptionalPrimitive)?._storedValue
            else { return nil }
            return stored == Self.zero(of: property) ? nil : stored
        }
        return ClassMetadata(type: type, name: name, isEmbedded: isEmbedded, properties: properties,
                             allowsHandleReuse: storesOnlyPersisted, declaredDefaults: declaredDefaults)
    }

    private static func validate(_ property: Property, of typeName: String) throws(SchemaError) {
        let kind = property.kind
        if property.options.isPrimaryKey {
            let allowed: Set<PropertyType> = [.int, .int8, .int16, .int32, .int64, .string, .uuid, .objectId]
            guard allowed.contains(kind.type), kind.collection == .none, !kind.isLinkingObjects else {
                throw .unsupportedProperty(type: typeName, property: property.name,
                    reason: "a primary key must be Int, String, UUID or ObjectId")
            }
        }
        if property.options.isIndexed {
            let allowed: Set<PropertyType> = [.bool, .int, .int8, .int16, .int32, .int64, .string, .date, .uuid, .objectId]
            guard allowed.contains(kind.type), kind.collection == .none, !kind.isLinkingObjects else {
                throw .unsupportedProperty(type: typeName, property: property.name,
                    reason: "only Bool, integer, String, Date, UUID and ObjectId properties can be indexed")
            }
        }
        if kind.collection == .none, !kind.isLinkingObjects, let target = kind.objectType, !kind.isOptional {
            throw .unsupportedProperty(type: typeName, property: property.name,
                reason: "a link to \(ClassMetadata.typeName(target)) must be optional")
        }
    }
}

/// An optional of a primitive: its stored form needs no write context.
/// Reads a class's declared initial values (see ``ClassMetadata/declaredDefaults``).
protocol _OptionalPrimitive {
    var _storedValue: PersistedValue { get }
}

extension Optional: _OptionalPrimitive where Wrapped: _PrimitivePersistable {
    var _storedValue: PersistedValue { map(\._primitive) ?? .null }
}
