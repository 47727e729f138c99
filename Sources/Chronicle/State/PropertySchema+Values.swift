import Foundation

extension PropertySchema {
    /// The value an object holds for this property when nothing else was
    /// given — what existing objects get when the property is added.
    ///
    /// The ``declaredDefault`` if there is one; otherwise `.null` for optionals and to-one links; an empty collection for
    /// lists, sets and maps; otherwise the type's zero: `false`, `0`, `0.0`,
    /// `""` (also for URLs), empty data, the reference date (2001-01-01),
    /// the all-zero UUID and ``ObjectId``, and decimal zero.
    public var defaultValue: PersistedValue {
        if let declaredDefault { return declaredDefault }
        return zeroValue
    }

    /// The type's zero (see ``defaultValue``), whatever the declared default.
    var zeroValue: PersistedValue {
        switch collection {
        case .list: return .list([])
        case .set: return .set([])
        case .map: return .map([])
        case .none: break
        }
        if isOptional || type == .object { return .null }
        switch type {
        case .bool: return .bool(false)
        case .int, .int8, .int16, .int32, .int64: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string, .url: return .string("")
        case .data: return .data(Data())
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        case .decimal: return .decimal(0)
        case .objectId: return .objectId(ObjectId())
        case .object: return .null
        }
    }
}

extension PropertyType {
    /// Whether a non-null `value` has the case this type is stored as:
    /// all integer widths as ``PersistedValue/int(_:)``, URLs as
    /// ``PersistedValue/string(_:)``, objects as ``PersistedValue/link(_:)``.
    public func accepts(_ value: PersistedValue) -> Bool {
        switch (self, value) {
        case (.bool, .bool), (.int, .int), (.int8, .int), (.int16, .int), (.int32, .int), (.int64, .int),
             (.float, .float), (.double, .double), (.string, .string), (.url, .string), (.data, .data),
             (.date, .date), (.uuid, .uuid), (.decimal, .decimal), (.objectId, .objectId), (.object, .link):
            true
        default:
            false
        }
    }
}
