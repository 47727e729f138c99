/// Optionals as collection elements and map values: `List<String?>`,
/// `MutableSet<Int?>`, `Map<String, Int?>`, `Map<String, Dog?>`. The schema
/// records the element type as optional; `nil` is stored as
/// ``PersistedValue/null``.
extension Optional: _PersistableValue where Wrapped: _PersistableWrapped {
    /// The wrapped type's kind, optional.
    public static var _valueKind: _PropertyKind {
        var kind = Wrapped._valueKind
        kind.isOptional = true
        return kind
    }

    /// `nil` for a stored null (a present element that is `nil`); otherwise
    /// the wrapped value, or no element if it does not read as `Wrapped`.
    public static func _fromPersisted(_ value: PersistedValue, in context: _ReadContext) -> Self? {
        if case .null = value { return .some(.none) }
        return Wrapped._fromPersisted(value, in: context).map { Self.some($0) }
    }

    /// ``PersistedValue/null`` for `nil`.
    public func _toPersisted(in context: _WriteContext) -> PersistedValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped._toPersisted(in: context)
        }
    }

    /// The wrapped type's recording element.
    public static func _recordingElement(_ recording: _Recording) -> Self? {
        Wrapped._recordingElement(recording).map { Self.some($0) }
    }
}
