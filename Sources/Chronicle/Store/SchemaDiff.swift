/// How a class's declared schema differs from what a journal recorded.
///
/// Additions are migrated automatically (appended as schema events, with
/// the class's declared default for existing objects); anything else is a
/// mismatch that names the property, what the journal has and what the
/// class declares, in Swift's spelling (`Int`, `Double?`, `List<Dog>`).
struct SchemaDiff {
    var added: [PropertySchema] = []
    var mismatches: [String] = []
    /// The mismatches other than properties the class no longer declares:
    /// what would be misread in a state older than the latest.
    var changes: [String] = []

    init(recorded: TypeSchema, declared: TypeSchema) {
        func mismatch(_ text: String, isRemoval: Bool = false) {
            mismatches.append(text)
            if !isRemoval { changes.append(text) }
        }
        for property in declared.properties {
            guard let index = recorded.propertyIndex(named: property.name) else {
                if property.isPrimaryKey {
                    mismatch("the class declares primary key '\(property.name)' (\(property.swiftTypeName)), "
                        + "which the journal does not have; existing objects have no value for it")
                } else {
                    added.append(property)
                }
                continue
            }
            let old = recorded.properties[index]
            if old.type != property.type || old.objectType != property.objectType
                || old.collection != property.collection || old.isOptional != property.isOptional {
                mismatch("property '\(property.name)' is \(old.swiftTypeName) in the journal "
                    + "but \(property.swiftTypeName) in the class")
            } else if old.isPrimaryKey != property.isPrimaryKey {
                mismatch("property '\(property.name)' "
                    + (property.isPrimaryKey ? "is the primary key in the class but not in the journal"
                                             : "is the primary key in the journal but not in the class"))
            }
        }
        for property in recorded.properties where declared.propertyIndex(named: property.name) == nil {
            mismatch("the journal has property '\(property.name)' (\(property.swiftTypeName)), "
                + "which the class no longer declares", isRemoval: true)
        }
        if recorded.isEmbedded != declared.isEmbedded {
            mismatch(declared.isEmbedded ? "the journal has a top-level Object, the class is an EmbeddedObject"
                                             : "the journal has an EmbeddedObject, the class is a top-level Object")
        }
    }
}
