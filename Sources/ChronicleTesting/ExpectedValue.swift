import Chronicle
import Foundation

/// A property value an expectation accepts: a literal (`250`, `"rent"`,
/// `true`, `nil`), any `Equatable` value with ``value(_:)``, or ``any``.
///
/// ```swift
/// .created(Entry.self, [\.amount: 250, \.memo: "rent", \.bookedAt: .any])
/// .set(entry, \.bookedAt, to: .any)
/// ```
///
/// An integer literal matches a property of any integer or floating-point
/// type with that value (`250` matches an `Int64` 250 and a `Double` 250.0);
/// a string literal matches a `String` or a `String`-backed enum.
public struct ExpectedValue: CustomStringConvertible, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByNilLiteral {
    /// The value as messages print it (``ValueText``), or `any value`.
    public let description: String
    /// Whether the property's value (a Swift value, optionals included) is accepted.
    let matches: (Any) -> Bool

    /// `matches` sees the property's value without optional wrappers, `nil` for none.
    private init(description: String, matches: @escaping (Any?) -> Bool) {
        self.description = description
        self.matches = { matches(ExpectedValue.unwrapped($0)) }
    }

    /// Any value: the property must be there (and, for ``ExpectedChange/set(_:_:to:)-(_,_,ExpectedValue)``,
    /// must have changed), whatever its value.
    public static var any: ExpectedValue { ExpectedValue(description: "any value") { _ in true } }

    /// Exactly `value`, compared with `==` to the property's value.
    public static func value<Value: Equatable>(_ value: Value) -> ExpectedValue {
        let unwrapped = unwrapped(value)
        return ExpectedValue(description: ValueText.swift(value)) { actual in
            guard let actual else { return unwrapped == nil }
            return (actual as? Value) == value
        }
    }

    /// An integer: matches integer and floating-point properties of that value.
    public init(integerLiteral value: Int64) {
        self.init(description: "\(value)") { actual in
            switch actual {
            case let integer as any BinaryInteger: Int64(exactly: integer) == value
            case let float as any BinaryFloatingPoint: Double(float) == Double(value)
            case let decimal as Decimal: decimal == Decimal(value)
            default: false
            }
        }
    }

    /// A floating-point number: matches `Float`, `Double` and `Decimal` properties of that value.
    public init(floatLiteral value: Double) {
        self.init(description: "\(value)") { actual in
            switch actual {
            case let float as Float: float == Float(value)
            case let float as any BinaryFloatingPoint: Double(float) == value
            case let decimal as Decimal: decimal == Decimal(value)
            default: false
            }
        }
    }

    /// A string: matches a `String` property, or an enum whose raw value is a `String`.
    public init(stringLiteral value: String) {
        self.init(description: ValueText.string(value)) { actual in
            switch actual {
            case let string as String: string == value
            case let enumeration as any RawRepresentable: enumeration.rawValue as? String == value
            default: false
            }
        }
    }

    /// A Boolean.
    public init(booleanLiteral value: Bool) {
        self.init(description: "\(value)") { ($0 as? Bool) == value }
    }

    /// `nil`: matches an optional property without a value.
    public init(nilLiteral: ()) {
        self.init(description: "nil") { $0 == nil }
    }

    /// `value` without its optional wrappers; `nil` when it has none.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first.flatMap { unwrapped($0.value) }
    }
}
