/// An enum stored by its raw value, as the DoggoDB seed's `BusinessUnitEnum`:
///
/// ```swift
/// enum BusinessUnitEnum: String, PersistableEnum, CaseIterable {
///     case engineering = "Engineering"
///     case sales = "Sales"
/// }
/// @Persisted var businessUnit = BusinessUnitEnum.engineering
/// ```
///
/// A stored raw value that no case matches (written by a newer version of
/// the app, say) reads back as the first case.
///
/// A persistable enum is `Codable` through its raw value (Swift provides
/// that for raw-value enums), which lets `#Predicate` compare it:
/// `#Predicate<Person> { $0.businessUnit == unit }`.
public protocol PersistableEnum: _PrimitivePersistable, RawRepresentable, CaseIterable, Codable
where RawValue: _PrimitivePersistable & Codable {}

extension PersistableEnum {
    public static var _primitiveType: PropertyType { RawValue._primitiveType }
    public var _primitive: PersistedValue { rawValue._primitive }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) {
        guard let raw = RawValue(_primitive: value) else { return nil }
        self.init(rawValue: raw)
    }
    public static var _zero: Self {
        guard let first = allCases.first else {
            preconditionFailure("PersistableEnum \(Self.self) has no cases; a persisted enum needs at least one")
        }
        return first
    }
}
