import Chronicle

/// Renders tables, objects, properties and values with the names a
/// journal's schema gives them: `Person#1`, `firstName`, `"Ann"`, `Dog#3`.
struct SchemaNames {
    let schema: [TypeSchema]

    func typeName(_ table: Int) -> String {
        schema.indices.contains(table) ? schema[table].name : "table\(table)"
    }

    /// `Person#1`: the type name and the object key.
    func object(_ table: Int, _ key: ObjectKey) -> String { "\(typeName(table))\(key)" }

    func property(_ table: Int, _ index: Int) -> PropertySchema? {
        guard schema.indices.contains(table), schema[table].properties.indices.contains(index) else { return nil }
        return schema[table].properties[index]
    }

    /// `Person#1.firstName`.
    func path(_ table: Int, _ key: ObjectKey, _ property: Int) -> String {
        "\(object(table, key)).\(self.property(table, property)?.name ?? "property\(property)")"
    }

    /// A value as Swift code would print it, links as `Type#key`; distinct
    /// values never print alike (see ``ValueText``).
    func value(_ value: PersistedValue, of property: PropertySchema?) -> String {
        ValueText.persisted(value, objectType: property?.objectType)
    }

    /// `String`, `Int?`, `List<Dog>`, `Map<String, Int>`, `Address?`: the
    /// library's own spelling, so messages and descriptions agree.
    static func typeDescription(_ property: PropertySchema) -> String {
        property.swiftTypeName
    }
}
