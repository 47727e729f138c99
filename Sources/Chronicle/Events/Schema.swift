/// The persisted shape of one object type, as the journal records it.
///
/// A journal carries the schema of every type it holds (in
/// ``Event/defineType(_:)`` and ``Event/addProperty(table:_:)`` events), so it
/// can be read without the app's Swift classes.
public struct TypeSchema: Hashable, Sendable {
    /// The type's name: the Swift class name, as Realm uses it for the table.
    public var name: String
    /// Whether objects of this type exist only inside a parent object.
    public var isEmbedded: Bool
    /// The persisted properties, in the order events index them.
    public var properties: [PropertySchema]

    /// A type schema.
    public init(name: String, isEmbedded: Bool = false, properties: [PropertySchema]) {
        self.name = name
        self.isEmbedded = isEmbedded
        self.properties = properties
    }

    /// The index of the primary-key property, if the type has one.
    public var primaryKeyIndex: Int? { properties.firstIndex(where: \.isPrimaryKey) }

    /// The index of the property named `name`.
    public func propertyIndex(named name: String) -> Int? {
        properties.firstIndex { $0.name == name }
    }
}

/// One persisted property of a ``TypeSchema``.
public struct PropertySchema: Hashable, Sendable {
    /// The property's name, as declared (without the wrapper's underscore).
    public var name: String
    /// The element type.
    public var type: PropertyType
    /// For ``PropertyType/object`` properties: the linked type's name.
    public var objectType: String?
    /// Whether the property holds one value, a list, a set or a map.
    public var collection: CollectionKind
    /// Whether the property can be `nil`.
    public var isOptional: Bool
    /// Whether the property is the primary key.
    public var isPrimaryKey: Bool
    /// Whether equality queries on the property use an index.
    public var isIndexed: Bool
    /// The value objects that existed before the property was added hold:
    /// the class's declared initial value (`@Persisted var color = "brown"`),
    /// recorded by the ``Event/addProperty(table:_:)`` event that added it.
    /// `nil` when that is the type's zero (see ``defaultValue``), and in
    /// journals written before defaults were recorded.
    public var declaredDefault: PersistedValue?

    /// A property schema.
    public init(name: String, type: PropertyType, objectType: String? = nil, collection: CollectionKind = .none,
                isOptional: Bool = false, isPrimaryKey: Bool = false, isIndexed: Bool = false,
                declaredDefault: PersistedValue? = nil) {
        self.name = name
        self.type = type
        self.objectType = objectType
        self.collection = collection
        self.isOptional = isOptional
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.declaredDefault = declaredDefault
    }
}

/// The element type of a persisted property.
public enum PropertyType: UInt8, Hashable, Sendable, CaseIterable {
    case bool = 1, int, int8, int16, int32, int64, float, double, string, data, date, uuid, url, decimal, objectId
    /// A link to an object of ``PropertySchema/objectType`` (embedded or not).
    case object
}

/// Whether a property holds one value or a collection of them.
public enum CollectionKind: UInt8, Hashable, Sendable {
    case none = 0, list, set, map
}
