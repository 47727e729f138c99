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
    /// The journal was migrated to a schema version higher than the app's
    /// ``Store/Configuration/schemaVersion``: a newer app wrote it.
    case newerSchemaVersion(journal: UInt64, app: UInt64)
    /// The migration closure threw (or asked for a change the journal
    /// cannot make); nothing was written.
    case migrationFailed(from: UInt64, to: UInt64, reason: String)
    /// A model class cannot read an older version of the store (through
    /// ``Store/frozen(at:)-(UInt64)``): a migration since changed the type,
    /// and the class declares it as it is now. Read that version without
    /// the class, by type and property name
    /// (``FrozenStore/objects(ofType:)``).
    case unreadableVersion(type: String, version: UInt64, differences: [String])

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
                + ". " + Self.migrationAdvice(type: type, differences: differences)
        case let .newerSchemaVersion(journal, app):
            "the journal has schema version \(journal), newer than this app's \(app) (Configuration.schemaVersion): "
                + "a newer version of the app wrote it, and this one must not write into it. Update the app."
        case let .unreadableVersion(type, version, differences):
            "the class \(type) cannot read version \(version) of the store, which a migration changed since: "
                + differences.joined(separator: "; ") + ". Reading it would give wrong values. "
                + "Read that version by type and property name instead: "
                + "try store.frozen(at: \(version)).objects(ofType: \"\(type)\") gives each object's values as it had them "
                + "(snapshot[\"property\"]), and frozen.state.schema the type as it was then."
        case let .migrationFailed(from, to, reason):
            "the migration from schema version \(from) to \(to) failed, and the journal is unchanged: \(reason)"
        case let .duplicateTypeName(name):
            "two model classes are both named \(name); Chronicle names a type's table after its class "
                + "(without its module or enclosing type). Rename one of them, or keep them in separate stores."
        }
    }

    /// What to do about a mismatch, with a migration to start from.
    static func migrationAdvice(type: String, differences: [String]) -> String {
        // The property the first difference quotes, for the example.
        let property = differences.first?.split(separator: "'", omittingEmptySubsequences: false).dropFirst().first
            .map(String.init) ?? "property"
        return "Restore the class as it was, or describe the change in a migration: "
            + "configuration.schemaVersion = 1 (one more than the journal's; see Store.Configuration.schemaVersion) and "
            + "configuration.migration = { migration, oldSchemaVersion in "
            + "migration.enumerateObjects(ofType: \"\(type)\") { old, new in new?[\"\(property)\"] = /* converted */ old?[\"\(property)\"] } }. "
            + "A property the class no longer declares needs only the new schemaVersion: the migration drops its values. "
            + "The article \"Evolving your schema\" shows each kind of change."
    }
}
