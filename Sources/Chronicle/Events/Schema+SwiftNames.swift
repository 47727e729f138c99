// Types as a Swift declaration spells them, for messages that name what a
// journal holds and what a class declares.

extension PropertySchema {
    /// The property's type as a Swift declaration spells it: `Int`,
    /// `String?`, `List<Dog>`, `Map<String, Int>`. Package access: the
    /// testing library describes schemas with it too.
    package var swiftTypeName: String {
        var text = objectType ?? type.swiftName
        switch collection {
        case .none: return isOptional || type == .object ? text + "?" : text
        case .list: text = "List<\(text)\(isOptional ? "?" : "")>"
        case .set: text = "MutableSet<\(text)\(isOptional ? "?" : "")>"
        case .map: text = "Map<String, \(text)\(isOptional ? "?" : "")>"
        }
        return text
    }
}

extension PropertyType {
    /// The Swift type stored as this type.
    var swiftName: String {
        switch self {
        case .bool: "Bool"
        case .int: "Int"
        case .int8: "Int8"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int64"
        case .float: "Float"
        case .double: "Double"
        case .string: "String"
        case .data: "Data"
        case .date: "Date"
        case .uuid: "UUID"
        case .url: "URL"
        case .decimal: "Decimal"
        case .objectId: "ObjectId"
        case .object: "Object"
        }
    }
}
