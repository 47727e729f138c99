/// One object in a migration: `old` reads it as it was before the
/// migration (with the old schema), `new` reads and writes it now (with the
/// new schema). See ``Migration/enumerateObjects(ofType:_:)``.
///
/// Values are ``PersistedValue``s, by property name, as the journal
/// stores them: `Int`s of every width as ``PersistedValue/int(_:)``, URLs
/// as strings, links as ``PersistedValue/link(_:)`` (a key: the same in
/// `old` and `new`), collections as arrays. `subscript(_:as:)` reads plain
/// Swift values.
public final class MigrationObject {
    unowned let migration: Migration
    /// The type's name in the schema this object reads with.
    public let typeName: String
    /// The object's key: the same before and after the migration.
    public let key: ObjectKey
    let isOld: Bool

    init(migration: Migration, typeName: String, key: ObjectKey, isOld: Bool) {
        self.migration = migration
        self.typeName = typeName
        self.key = key
        self.isOld = isOld
    }

    /// The value of the property `name`, or `nil` if the object's schema has
    /// no such property (or the object was deleted). Setting it on a `new`
    /// object writes it (`nil` stores ``PersistedValue/null``); setting a
    /// property the new schema does not have stops with a message.
    public subscript(name: String) -> PersistedValue? {
        get {
            let state = isOld ? migration.oldState : migration.state
            guard let table = state.tableIndex(named: typeName),
                  let property = state.schema[table].propertyIndex(named: name),
                  let record = state.object(table: table, key: key) else { return nil }
            return record[property]
        }
        set {
            precondition(!isOld, "Chronicle: the `old` object of a migration only reads the past; set '\(name)' on `new`")
            let state = migration.state
            guard let table = state.tableIndex(named: typeName), let property = state.schema[table].propertyIndex(named: name) else {
                preconditionFailure("Chronicle: \(typeName) has no property '\(name)' in the new schema; "
                    + "declare it in the class (and list the class in Configuration.objectTypes)")
            }
            migration.transaction.set(table: table, key: key, property: property, value: newValue ?? .null)
        }
    }

    /// The value of the property `name` as a plain Swift value (`Int`,
    /// `String`, `Double`, `Date`, a ``PersistableEnum`` …), or `nil` when
    /// it is `nil`, absent, or stored as another type.
    public subscript<Value: _PrimitivePersistable>(name: String, as type: Value.Type) -> Value? {
        self[name].flatMap { Value(_primitive: $0) }
    }

    /// This object as a link value, to store in a link property of another
    /// object: `new?["owner"] = person.asLink`.
    public var asLink: PersistedValue { .link(key) }
}
