/// A model class that cannot be persisted, or a journal whose recorded
/// schema does not match the classes given to the store.
public enum SchemaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A property of a type Chronicle cannot persist the way it is declared.
    case unsupportedProperty(type: String, property: String, reason: String)
    /// More than one `@Persisted(primaryKey: true)` property.
    case multiplePrimaryKeys(type: String, properties: [String])
    /// An ``EmbeddedObject`` subclass declared a primary key.
    case embeddedPrimaryKey(type: String, property: String)
    /// `LinkingObjects` names an origin property that does not link here.
    case invalidOriginProperty(type: String, property: String, origin: String, originProperty: String)
    /// The journal records a property that the class no longer declares, or
    /// declares with another type. Each difference is one line.
    case mismatch(type: String, differences: [String])
    /// Two model classes share a name.
    case duplicateTypeName(String)

    /// A readable description, for logs and test failures.
    public var description: String {
        switch self {
        case let .unsupportedProperty(type, property, reason):
            "\(type).\(property) cannot be persisted: \(reason)"
        case let .multiplePrimaryKeys(type, properties):
            "\(type) declares more than one primary key (\(properties.joined(separator: ", "))); keep one @Persisted(primaryKey: true)"
        case let .embeddedPrimaryKey(type, property):
            "\(type) is an EmbeddedObject and cannot have a primary key (\(property)); embedded objects are identified by their parent"
        case let .invalidOriginProperty(type, property, origin, originProperty):
            "\(type).\(property) is LinkingObjects<\(origin)> with originProperty \"\(originProperty)\", but \(origin).\(originProperty) is not a link, List or MutableSet of \(type)"
        case let .mismatch(type, differences):
            "the journal's schema for \(type) does not match the class: " + differences.joined(separator: "; ")
                + ". Restore the property, or open the store with a migration (Configuration.schemaVersion and .migration)."
        case let .duplicateTypeName(name):
            "two model classes are both named \(name); Chronicle names a type's table after its class"
        }
    }
}
