import Foundation

/// A Swift type whose values can appear as constants in a translated query:
/// each value has the ``PersistedValue`` a persisted property of that type
/// holds, and `==` on the Swift values agrees with `==` on the persisted
/// ones.
///
/// The standard scalar types conform here; the model layer conforms
/// `ObjectId` and `PersistableEnum`. Other `RawRepresentable` types (such as
/// enums with a raw value) translate through their raw value without
/// conforming. `UInt64` and `UInt` do not conform: not every value fits the
/// persisted `Int64`.
protocol QueryConstantConvertible {
    /// The persisted form of this value. O(1), or O(n) for data and strings.
    var queryConstant: PersistedValue { get }
    /// Whether `<` on the Swift values agrees with `<` on the persisted ones,
    /// so that ordering comparisons can run on the persisted form. `false`
    /// for types that are not `Comparable` or order differently (an enum
    /// orders by declaration, its raw values may not).
    static var queryConstantPreservesOrder: Bool { get }
}

extension QueryConstantConvertible {
    static var queryConstantPreservesOrder: Bool { true }
}

extension Bool: QueryConstantConvertible {
    var queryConstant: PersistedValue { .bool(self) }
    static var queryConstantPreservesOrder: Bool { false }
}

/// Integers whose every value fits the persisted `Int64`.
extension QueryConstantConvertible where Self: BinaryInteger {
    var queryConstant: PersistedValue { .int(Int64(self)) }
}

extension Int: QueryConstantConvertible {}
extension Int8: QueryConstantConvertible {}
extension Int16: QueryConstantConvertible {}
extension Int32: QueryConstantConvertible {}
extension Int64: QueryConstantConvertible {}
extension UInt8: QueryConstantConvertible {}
extension UInt16: QueryConstantConvertible {}
extension UInt32: QueryConstantConvertible {}

extension Float: QueryConstantConvertible {
    var queryConstant: PersistedValue { .float(self) }
}

extension Double: QueryConstantConvertible {
    var queryConstant: PersistedValue { .double(self) }
}

extension String: QueryConstantConvertible {
    var queryConstant: PersistedValue { .string(self) }
}

extension Data: QueryConstantConvertible {
    var queryConstant: PersistedValue { .data(self) }
    static var queryConstantPreservesOrder: Bool { false }
}

extension Date: QueryConstantConvertible {
    var queryConstant: PersistedValue { .date(self) }
}

extension UUID: QueryConstantConvertible {
    var queryConstant: PersistedValue { .uuid(self) }
}

extension Decimal: QueryConstantConvertible {
    var queryConstant: PersistedValue { .decimal(self) }
}

/// A URL is persisted as its absolute string, so URLs compare by that
/// string (two URLs spelled differently relative to different bases but
/// with the same absolute string are equal).
extension URL: QueryConstantConvertible {
    var queryConstant: PersistedValue { .string(absoluteString) }
    static var queryConstantPreservesOrder: Bool { false }
}

extension Optional: QueryConstantConvertible where Wrapped: QueryConstantConvertible {
    var queryConstant: PersistedValue { self?.queryConstant ?? .null }
    static var queryConstantPreservesOrder: Bool { Wrapped.queryConstantPreservesOrder }
}

/// A constant operand: its persisted form and whether ordering comparisons
/// may run on that form.
struct QueryConstant: Hashable, Sendable {
    var value: PersistedValue
    var preservesOrder: Bool

    /// The constant for any Swift value: `nil` of any optional type, a
    /// ``QueryConstantConvertible`` value, or a `RawRepresentable` value
    /// through its raw value (equality only). `nil` when the value has no
    /// persisted form. O(1) beyond the conversion itself.
    init?(_ value: Any) {
        var value = value
        while let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedAny else {
                self.init(value: .null, preservesOrder: false)
                return
            }
            value = wrapped
        }
        if let convertible = value as? any QueryConstantConvertible {
            self.init(value: convertible.queryConstant,
                      preservesOrder: type(of: convertible).queryConstantPreservesOrder)
        } else if let raw = value as? any RawRepresentable,
                  let rawConstant = QueryConstant(raw.rawValue) {
            self.init(value: rawConstant.value, preservesOrder: false)
        } else {
            return nil
        }
    }

    init(value: PersistedValue, preservesOrder: Bool) {
        self.value = value
        self.preservesOrder = preservesOrder
    }
}

/// Lets ``QueryConstant`` see through an `Optional` of any wrapped type.
protocol OptionalValue {
    var wrappedAny: Any? { get }
}

extension Optional: OptionalValue {
    var wrappedAny: Any? { self.map { $0 } }
}
