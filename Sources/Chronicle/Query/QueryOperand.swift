/// What a value-producing part of a predicate translates to.
enum QueryOperand {
    /// The value of a persisted property.
    case path(PathOperand)
    /// A value known at translation time.
    case constant(QueryConstant)
    /// Anything else: only the predicate itself can compute it.
    case opaque
}

/// A persisted property's value, as a predicate reads it.
struct PathOperand {
    /// The property.
    var path: PropertyPath
    /// Prefixes of ``path`` the predicate force-unwraps, in evaluation
    /// order; each must be non-`nil` or the predicate throws.
    var unwraps: [PropertyPath] = []
    /// The constant `??` substitutes when the value is `nil`.
    var fallback: QueryConstant? = nil

    /// This operand without a fallback, or `nil` when it has one (a key path
    /// or string test over `x ?? y` is not translated).
    var plain: PathOperand? { fallback == nil ? self : nil }

    /// `node` preceded by this operand's force-unwrap checks. O(n).
    func guarding(_ node: QueryNode) -> QueryNode {
        unwraps.isEmpty ? node : .conjunction(unwraps.map(QueryNode.unwrap) + [node])
    }
}

extension QueryOperand {
    /// The operand's plain path (no `??`), if it is one.
    var plainPath: PathOperand? {
        if case .path(let operand) = self { operand.plain } else { nil }
    }

    /// The operand's constant, if it is one.
    var constant: QueryConstant? {
        if case .constant(let constant) = self { constant } else { nil }
    }
}

extension QueryNode {
    /// The node for `lhs op rhs`. O(1), plus O(n) for force-unwrap guards.
    ///
    /// A path against a constant (either side) becomes a
    /// ``QueryNode/compare(_:_:_:)``; `(path ?? fallback) op constant` becomes
    /// `path == nil ? (fallback op constant) : (path op constant)`, with the
    /// first branch decided at translation time; two constants fold to a
    /// ``QueryNode/constant(_:)``. Anything else, and ordering comparisons of
    /// types whose persisted form orders differently, is ``QueryNode/opaque``.
    static func comparison(_ lhs: QueryOperand, _ op: ComparisonOperator, _ rhs: QueryOperand) -> QueryNode {
        let isOrdering = op != .equal && op != .notEqual
        switch (lhs, rhs) {
        case let (.path(path), .constant(constant)):
            return comparison(path, op, constant, isOrdering: isOrdering)
        case let (.constant(constant), .path(path)):
            return comparison(path, op.flipped, constant, isOrdering: isOrdering)
        case let (.constant(a), .constant(b)):
            guard !isOrdering || (a.preservesOrder && b.preservesOrder) else { return .opaque }
            return .constant(compareValues(a.value, op, b.value))
        default:
            return .opaque
        }
    }

    private static func comparison(_ path: PathOperand, _ op: ComparisonOperator, _ constant: QueryConstant,
                                   isOrdering: Bool) -> QueryNode {
        guard !isOrdering || constant.preservesOrder else { return .opaque }
        let compare = QueryNode.compare(path.path, op, constant.value)
        guard let fallback = path.fallback else { return path.guarding(compare) }
        guard !isOrdering || fallback.preservesOrder else { return .opaque }
        if compareValues(fallback.value, op, constant.value) {
            return path.guarding(.disjunction([.compare(path.path, .equal, .null), compare]))
        } else {
            return path.guarding(.conjunction([.compare(path.path, .notEqual, .null), compare]))
        }
    }
}
