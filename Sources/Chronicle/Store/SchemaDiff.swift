/// How a class's declared schema differs from what a journal recorded.
///
/// Additions are migrated automatically (appended as schema events);
/// anything else is a mismatch that names the property.
struct SchemaDiff {
    var added: [PropertySchema] = []
    var mismatches: [String] = []

    init(recorded: TypeSchema, declared: TypeSchema) {
        for property in declared.properties {
            guard let index = recorded.propertyIndex(named: property.name) else {
                if property.isPrimaryKey {
                    mismatches.append("primary key '\(property.name)' was added; existing objects have no value for it")
                } else {
                    added.append(property)
                }
                continue
            }
            let old = recorded.properties[index]
            if old.type != property.type || old.objectType != property.objectType
                || old.collection != property.collection || old.isOptional != property.isOptional {
                mismatches.append("property '\(property.name)' changed from \(Self.describe(old)) to \(Self.describe(property))")
            } else if old.isPrimaryKey != property.isPrimaryKey {
                mismatches.append("property '\(property.name)' \(property.isPrimaryKey ? "became" : "is no longer") the primary key")
            }
        }
        for property in recorded.properties where declared.propertyIndex(named: property.name) == nil {
            mismatches.append("property '\(property.name)' (\(Self.describe(property))) was removed")
        }
        if recorded.isEmbedded != declared.isEmbedded {
            mismatches.append(declared.isEmbedded ? "the type became embedded" : "the type is no longer embedded")
        }
    }

    static func describe(_ property: PropertySchema) -> String {
        var text = property.objectType ?? "\(property.type)"
        switch property.collection {
        case .none: break
        case .list: text = "List<\(text)>"
        case .set: text = "MutableSet<\(text)>"
        case .map: text = "Map<String, \(text)>"
        }
        return property.isOptional ? text + "?" : text
    }
}
