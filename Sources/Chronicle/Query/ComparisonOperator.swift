/// The comparison a ``QueryNode/compare(_:_:_:)`` applies between a
/// property's value (left) and a constant (right).
enum ComparisonOperator: Hashable, Sendable, CaseIterable {
    case equal, notEqual, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual

    /// The operator that gives the same answer with its operands swapped:
    /// `18 <= age` is `age >= 18`.
    var flipped: ComparisonOperator {
        switch self {
        case .equal, .notEqual: self
        case .lessThan: .greaterThan
        case .lessThanOrEqual: .greaterThanOrEqual
        case .greaterThan: .lessThan
        case .greaterThanOrEqual: .lessThanOrEqual
        }
    }

    /// Applies the operator with `T`'s own operators, so that, for example,
    /// a `Double` NaN compares the way Swift compares it. O(1) beyond `T`'s
    /// comparison.
    func apply<T: Comparable>(_ lhs: T, _ rhs: T) -> Bool {
        switch self {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        case .lessThan: lhs < rhs
        case .lessThanOrEqual: lhs <= rhs
        case .greaterThan: lhs > rhs
        case .greaterThanOrEqual: lhs >= rhs
        }
    }

    /// Applies an equality operator to a type that has no order; the
    /// ordering operators are `false` (translation never produces them for
    /// such types).
    func applyEquality<T: Equatable>(_ lhs: T, _ rhs: T) -> Bool {
        switch self {
        case .equal: lhs == rhs
        case .notEqual: lhs != rhs
        default: false
        }
    }
}
