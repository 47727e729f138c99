/// What a migration closure changes the store through
/// (``Store/Configuration/migration``): Realm's `Migration`, on a journal.
///
/// Before the closure runs, the store is already shaped like the model
/// classes of ``Store/Configuration/objectTypes`` as far as no data is lost:
/// new types and properties exist (with their declared defaults), and a
/// property whose type changed holds the values that still fit (others
/// hold the new type's default). The closure then reads each object as it
/// was (`old`) and writes the new one (`new`). After it, properties the
/// classes no longer declare are removed, primary keys, indexes and
/// embedding follow the classes, and the new schema version is recorded —
/// all in the one commit the journal records as the migration.
///
/// ```swift
/// configuration.schemaVersion = 2
/// configuration.migration = { migration, oldSchemaVersion in
///     if oldSchemaVersion < 2 {
///         migration.renameProperty(onType: "Dog", from: "name", to: "fullName")
///         migration.enumerateObjects(ofType: "Dog") { old, new in
///             // age was an Int, is a Double now
///             new?["age"] = .double(Double(old?["age", as: Int.self] ?? 0))
///         }
///     }
/// }
/// ```
///
/// A migration is used only inside its closure, on the thread that runs it.
public final class Migration {
    /// The schema version the journal had.
    public let oldSchemaVersion: UInt64
    /// The schema version the migration moves to (``Store/Configuration/schemaVersion``).
    public let newSchemaVersion: UInt64
    let transaction: Transaction
    /// The state before the migration: what `old` objects read.
    let oldState: StoreState
    /// The model classes' schemas, by type name: the new schema.
    let declared: [String: TypeSchema]
    /// New type name → the name the type had in ``oldState``.
    private var typeRenames: [String: String] = [:]
    /// Types whose data ``deleteData(forType:)`` deleted; removed at the end
    /// unless a class declares them.
    private var deletedTypes: Set<String> = []
    /// Types and properties this migration added before the closure ran:
    /// a rename onto one of them replaces it.
    private var addedTypes: Set<String> = []
    private var addedProperties: Set<String> = []

    init(transaction: Transaction, declared: [TypeSchema], from old: UInt64, to new: UInt64) {
        self.transaction = transaction
        oldState = transaction.state
        self.declared = Dictionary(declared.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        oldSchemaVersion = old
        newSchemaVersion = new
    }

    // MARK: The closure's API

    /// Calls `body` once for each object of the type named `typeName` that
    /// existed before the migration: `old` reads it as it was (with the old
    /// schema), `new` reads and writes it now (with the new schema), or is
    /// `nil` if the migration deleted it.
    ///
    /// For a type renamed with ``renameType(from:to:)``, pass the new name.
    public func enumerateObjects(ofType typeName: String,
                                 _ body: (_ old: MigrationObject?, _ new: MigrationObject?) throws -> Void) rethrows {
        let oldName = typeRenames[typeName] ?? typeName
        guard let oldTable = oldState.tableIndex(named: oldName) else { return }
        for (key, _) in oldState.objects(table: oldTable) {
            let old = MigrationObject(migration: self, typeName: oldName, key: key, isOld: true)
            let exists = state.tableIndex(named: typeName).map { state.contains(table: $0, key: key) } ?? false
            try body(old, exists ? MigrationObject(migration: self, typeName: typeName, key: key, isOld: false) : nil)
        }
    }

    /// Renames a property, keeping its values (and its history: the
    /// journal records a rename, not a removal and an addition). The class
    /// declares the property under its new name.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let table = state.tableIndex(named: typeName), state.schema[table].propertyIndex(named: oldName) != nil else {
            return fail("renameProperty(onType: \"\(typeName)\", from: \"\(oldName)\", to: \"\(newName)\"): "
                + "\(typeName) has no property '\(oldName)'")
        }
        if let taken = state.schema[table].propertyIndex(named: newName) {
            // Added for the class before the closure ran: the old property
            // takes its place.
            guard addedProperties.contains("\(typeName).\(newName)") else {
                return fail("renameProperty(onType: \"\(typeName)\", from: \"\(oldName)\", to: \"\(newName)\"): "
                    + "\(typeName) already has a property '\(newName)'")
            }
            transaction.apply(.changeSchema(.removeProperty(table: table, property: taken)))
        }
        guard let index = state.schema[table].propertyIndex(named: oldName) else { return }
        transaction.apply(.changeSchema(.renameProperty(table: table, property: index, to: newName)))
        align(typeName, finishing: false)
    }

    /// Renames a type, keeping its objects; links to it follow. Its class
    /// is named `newName`.
    public func renameType(from oldName: String, to newName: String) {
        guard state.tableIndex(named: oldName) != nil else {
            return fail("renameType(from: \"\(oldName)\", to: \"\(newName)\"): there is no type \(oldName)")
        }
        if let taken = state.tableIndex(named: newName) {
            guard addedTypes.contains(newName), state.count(table: taken) == 0 else {
                return fail("renameType(from: \"\(oldName)\", to: \"\(newName)\"): a type \(newName) exists already")
            }
            removeLinks(to: newName)
            transaction.apply(.changeSchema(.removeType(table: taken)))
        }
        guard let index = state.tableIndex(named: oldName) else { return }
        transaction.apply(.changeSchema(.renameType(table: index, to: newName)))
        typeRenames[newName] = typeRenames[oldName] ?? oldName
        alignAll(finishing: false)
    }

    /// Deletes every object of the type named `typeName`. Unless a class
    /// of the new schema declares the type, the type goes too (at the end
    /// of the migration, once nothing links to it).
    public func deleteData(forType typeName: String) {
        guard let table = state.tableIndex(named: typeName) else { return }
        for (key, _) in Array(state.objects(table: table)) {
            transaction.apply(.delete(table: table, key: key))
        }
        deletedTypes.insert(typeName)
    }

    /// Creates an object of the type named `typeName` with `values` by
    /// property name (the others hold their defaults), and returns it.
    @discardableResult
    public func create(_ typeName: String, values: [String: PersistedValue] = [:]) -> MigrationObject? {
        guard let table = state.tableIndex(named: typeName) else {
            fail("create(\"\(typeName)\"): there is no type \(typeName) in the new schema")
            return nil
        }
        var row = state.schema[table].properties.map(\.defaultValue)
        for (name, value) in values {
            guard let property = state.schema[table].propertyIndex(named: name) else {
                fail("create(\"\(typeName)\"): \(typeName) has no property '\(name)'")
                return nil
            }
            row[property] = value
        }
        let key = transaction.newKey(table: table)
        transaction.apply(.create(table: table, key: key, values: row))
        return MigrationObject(migration: self, typeName: typeName, key: key, isOld: false)
    }

    /// Deletes an object of the new schema (a `new` object, or one that
    /// ``create(_:values:)`` made).
    public func delete(_ object: MigrationObject) {
        precondition(!object.isOld, "Chronicle: delete the `new` object in a migration; the `old` one only reads the past")
        guard let table = state.tableIndex(named: object.typeName), state.contains(table: table, key: object.key) else { return }
        transaction.apply(.delete(table: table, key: object.key))
    }

    // MARK: Running

    var state: StoreState { transaction.state }

    private func fail(_ reason: String) {
        transaction.fail(.schema(.migrationFailed(from: oldSchemaVersion, to: newSchemaVersion, reason: reason)))
    }

    /// Shapes the store like the classes without losing data: before the closure.
    func prepare() {
        for name in declared.keys.sorted() where state.tableIndex(named: name) == nil {
            var type = declared[name]!
            // A primary key is made one at the end: the closure sets its values.
            for index in type.properties.indices { type.properties[index].isPrimaryKey = false }
            transaction.apply(.defineType(type))
            addedTypes.insert(name)
        }
        alignAll(finishing: false)
    }

    /// Removes what the classes no longer declare, makes primary keys,
    /// indexes and embedding follow them, and records the schema version:
    /// after the closure.
    func finish() {
        alignAll(finishing: true)
        for name in deletedTypes.sorted() where declared[name] == nil {
            guard let table = state.tableIndex(named: name), state.count(table: table) == 0 else { continue }
            transaction.apply(.changeSchema(.removeType(table: table)))
        }
        transaction.apply(.changeSchema(.setSchemaVersion(newSchemaVersion)))
    }

    private func alignAll(finishing: Bool) {
        for name in declared.keys.sorted() { align(name, finishing: finishing) }
    }

    /// Makes the type named `name` follow its class: before the closure,
    /// additions and redeclarations; at the end, also removals, primary
    /// keys and embedding.
    private func align(_ name: String, finishing: Bool) {
        guard let type = declared[name], let table = state.tableIndex(named: name) else { return }
        for property in type.properties {
            var property = property
            guard let index = state.schema[table].propertyIndex(named: property.name) else {
                property.isPrimaryKey = false
                property.declaredDefault = declaredDefaults[name]?[property.name]
                transaction.apply(.addProperty(table: table, property))
                addedProperties.insert("\(name).\(property.name)")
                continue
            }
            let recorded = state.schema[table].properties[index]
            if !finishing { property.isPrimaryKey = recorded.isPrimaryKey }
            property.declaredDefault = recorded.declaredDefault
            if !finishing && property.isPrimaryKey != recorded.isPrimaryKey { continue }
            if !finishing, recorded.type == .object, property.type == .object, let newTarget = property.objectType,
               let oldTarget = recorded.objectType, newTarget != oldTarget, addedTypes.contains(newTarget),
               declared[oldTarget] == nil {
                // Likely a type the closure renames (its links then follow
                // it); retargeted at the end otherwise.
                continue
            }
            if recorded != property {
                transaction.apply(.changeSchema(.changeProperty(table: table, property: index, property)))
            }
        }
        guard finishing else { return }
        while let extra = state.schema[table].properties.lastIndex(where: { type.propertyIndex(named: $0.name) == nil }) {
            let before = state.schema[table].properties.count
            transaction.apply(.changeSchema(.removeProperty(table: table, property: extra)))
            if state.schema[table].properties.count == before { return }
        }
        if state.schema[table].isEmbedded != type.isEmbedded {
            transaction.apply(.changeSchema(.changeEmbedding(table: table, isEmbedded: type.isEmbedded)))
        }
    }

    /// The declared defaults of the new schema's classes, by type and property name.
    var declaredDefaults: [String: [String: PersistedValue]] = [:]

    /// Before a placeholder type is removed: the properties of other types
    /// that link to it (added by this migration) go first.
    private func removeLinks(to name: String) {
        for table in state.schema.indices {
            while let index = state.schema[table].properties.lastIndex(where: {
                $0.objectType == name && addedProperties.contains("\(state.schema[table].name).\($0.name)")
            }) {
                let before = state.schema[table].properties.count
                transaction.apply(.changeSchema(.removeProperty(table: table, property: index)))
                if state.schema[table].properties.count == before { return }
            }
        }
    }
}
