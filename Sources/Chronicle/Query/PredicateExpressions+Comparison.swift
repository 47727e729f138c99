import Foundation

// Comparisons, membership and string tests between a property and constants.

extension PredicateExpressions.Equal: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        .comparison(try translator.operand(for: lhs), .equal, try translator.operand(for: rhs))
    }
}

extension PredicateExpressions.NotEqual: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        .comparison(try translator.operand(for: lhs), .notEqual, try translator.operand(for: rhs))
    }
}

extension PredicateExpressions.Comparison: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        let op: ComparisonOperator = switch self.op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqual
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqual
        }
        return .comparison(try translator.operand(for: lhs), op, try translator.operand(for: rhs))
    }
}

/// `(a...b).contains($0.x)` and `(a..<b).contains($0.x)` with constant bounds
/// become `x >= a && x <= b` (`x < b`), the comparisons Swift's ranges make.
extension PredicateExpressions.RangeExpressionContains: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        let element = try translator.operand(for: element)
        guard let bounds = range as? any RangeBoundsTranslatable else {
            _ = try translator.operand(for: range)
            return .opaque
        }
        let (lower, upper, isClosed) = try bounds.queryBounds(&translator)
        let node = QueryNode.conjunction([
            .comparison(element, .greaterThanOrEqual, lower),
            .comparison(element, isClosed ? .lessThanOrEqual : .lessThan, upper),
        ])
        return node.containsOpaque ? .opaque : node
    }
}

/// `[a, b].contains($0.x)` with a constant sequence becomes
/// ``QueryNode/oneOf(_:_:)``; `$0.tags.contains(c)` on a list or set
/// property becomes ``QueryNode/containsElement(_:_:)``.
extension PredicateExpressions.SequenceContains: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        let elementOperand = try translator.operand(for: element)
        if let constants = (sequence as? any ConstantSequenceTranslatable)?.queryElements() {
            guard let path = elementOperand.plainPath else { return .opaque }
            return path.guarding(.oneOf(path.path, constants))
        }
        let sequenceOperand = try translator.operand(for: sequence)
        guard let path = sequenceOperand.plainPath, let constant = elementOperand.constant else { return .opaque }
        return path.guarding(.containsElement(path.path, constant.value))
    }
}

/// `$0.name.contains("x")` on a `String` property.
extension PredicateExpressions.CollectionContainsCollection: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        try translator.stringTest(base, .contains, other, isString: Base.Output.self == String.self)
    }
}

/// `$0.name.starts(with: "x")` on a `String` property.
extension PredicateExpressions.SequenceStartsWith: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        try translator.stringTest(base, .beginsWith, prefix, isString: Base.Output.self == String.self)
    }
}

extension PredicateTranslator {
    /// A ``QueryNode/string(_:_:_:)`` when `base` is a `String` property and
    /// `other` a constant string, otherwise opaque.
    fileprivate mutating func stringTest(_ base: Any, _ op: StringOperator, _ other: Any, isString: Bool) throws -> QueryNode {
        let baseOperand = try operand(for: base)
        let otherOperand = try operand(for: other)
        guard isString, let path = baseOperand.plainPath,
              case .string(let constant)? = otherOperand.constant?.value else { return .opaque }
        return path.guarding(.string(path.path, op, constant))
    }
}

/// A range expression whose bounds can be translated.
protocol RangeBoundsTranslatable {
    func queryBounds(_ translator: inout PredicateTranslator) throws -> (lower: QueryOperand, upper: QueryOperand, isClosed: Bool)
}

extension PredicateExpressions.ClosedRange: RangeBoundsTranslatable {
    func queryBounds(_ translator: inout PredicateTranslator) throws -> (lower: QueryOperand, upper: QueryOperand, isClosed: Bool) {
        (try translator.operand(for: lower), try translator.operand(for: upper), true)
    }
}

extension PredicateExpressions.Range: RangeBoundsTranslatable {
    func queryBounds(_ translator: inout PredicateTranslator) throws -> (lower: QueryOperand, upper: QueryOperand, isClosed: Bool) {
        (try translator.operand(for: lower), try translator.operand(for: upper), false)
    }
}

/// A constant sequence whose elements all have persisted forms.
protocol ConstantSequenceTranslatable {
    func queryElements() -> [PersistedValue]?
}

extension PredicateExpressions.Value: ConstantSequenceTranslatable {
    func queryElements() -> [PersistedValue]? {
        guard let sequence = value as? any Sequence else { return nil }
        return Self.elements(of: sequence)
    }

    private static func elements<S: Sequence>(of sequence: S) -> [PersistedValue]? {
        var values: [PersistedValue] = []
        for element in sequence {
            guard let constant = QueryConstant(element) else { return nil }
            values.append(constant.value)
        }
        return values
    }
}
