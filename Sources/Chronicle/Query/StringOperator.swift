/// The string test a ``QueryNode/string(_:_:_:)`` applies to a property's
/// value (left) and a constant (right).
///
/// Both compare `Character`s (extended grapheme clusters) with `==`, exactly
/// like the generic `Collection` algorithms `#Predicate` calls:
/// `$0.name.contains("x")` and `$0.name.starts(with: "x")`. Foundation's
/// case-insensitive and localized string predicates are not available on
/// Linux; on Apple platforms they are evaluated per object (see
/// ``QueryNode/opaque``).
enum StringOperator: Hashable, Sendable {
    /// `value.contains(constant)`.
    case contains
    /// `value.starts(with: constant)`.
    case beginsWith

    /// Applies the test. O(n · m) in the two lengths for `contains`, O(m) for
    /// `beginsWith`.
    func apply(_ value: String, _ constant: String) -> Bool {
        switch self {
        case .contains: Self.collectionContains(value, constant)
        case .beginsWith: value.starts(with: constant)
        }
    }

    // Generic, so that the call binds to the same `Collection` algorithm as
    // `PredicateExpressions.CollectionContainsCollection`, not to
    // Foundation's `StringProtocol.contains`.
    private static func collectionContains<C: Collection>(_ base: C, _ other: C) -> Bool where C.Element: Equatable {
        base.contains(other)
    }
}
