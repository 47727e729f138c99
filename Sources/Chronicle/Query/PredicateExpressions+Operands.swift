import Foundation

// Values: constants, the predicate's variables, key paths and optional
// chaining (`?.`, `??`, `!`).

extension PredicateExpressions.Value: ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand {
        QueryConstant(value).map(QueryOperand.constant) ?? .opaque
    }
}

/// A constant `Bool` predicate (`#Predicate { true }`).
extension PredicateExpressions.Value: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        (value as? Bool).map(QueryNode.constant) ?? .opaque
    }
}

extension PredicateExpressions.NilLiteral: ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand {
        .constant(QueryConstant(value: .null, preservesOrder: false))
    }
}

extension PredicateExpressions.Variable: ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand {
        translator.operand(forVariable: key).map(QueryOperand.path) ?? .opaque
    }
}

/// `$0.age`, `$0.address.city`: the resolver maps each key path; a key path
/// on a constant (`limits.minimum`) is read once, at translation time.
extension PredicateExpressions.KeyPath: ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand {
        if isVariableFree {
            return QueryConstant(try evaluate(PredicateBindings())).map(QueryOperand.constant) ?? .opaque
        }
        switch try translator.operand(for: root) {
        case .path(let base):
            guard let base = base.plain else { return .opaque }
            return try translator.apply(keyPath as AnyKeyPath, to: base, valueType: Root.Output.self)
        case .constant, .opaque:
            return .opaque
        }
    }
}

/// An expression that reads no predicate variable, so that it can be
/// evaluated once, at translation time: a captured value and key paths on it.
protocol VariableFreeExpression {
    var isVariableFree: Bool { get }
}

extension PredicateExpressions.Value: VariableFreeExpression {
    var isVariableFree: Bool { true }
}

extension PredicateExpressions.KeyPath: VariableFreeExpression {
    var isVariableFree: Bool { (root as? any VariableFreeExpression)?.isVariableFree ?? false }
}

/// A `Bool` property as the whole test (`$0.isActive`).
extension PredicateExpressions.KeyPath: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        let operand = try queryOperand(&translator)
        guard Output.self == Bool.self else { return .opaque }
        return .comparison(operand, .equal, .constant(QueryConstant(value: .bool(true), preservesOrder: false)))
    }
}

/// `$0.address?.city`: the chain's variable stands for the wrapped path
/// while the transform is translated, so the transform's path extends it.
extension PredicateExpressions.OptionalFlatMap: ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand {
        guard let base = try translator.operand(for: wrapped).plainPath else {
            _ = try translator.operand(for: transform)
            return .opaque
        }
        let result = try translator.with(variable.key, boundTo: base) { try $0.operand(for: transform) }
        return result.plainPath.map(QueryOperand.path) ?? .opaque
    }
}

/// `$0.nickname ?? "none"` with a constant fallback.
extension PredicateExpressions.NilCoalesce: ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand {
        let value = try translator.operand(for: lhs)
        let fallback = try translator.operand(for: rhs)
        guard var path = value.plainPath, let constant = fallback.constant else { return .opaque }
        path.fallback = constant
        return .path(path)
    }
}

/// `$0.address!.city`: the unwrapped prefix must not be `nil`.
extension PredicateExpressions.ForcedUnwrap: ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand {
        guard var path = try translator.operand(for: inner).plainPath else { return .opaque }
        path.unwraps.append(path.path)
        return .path(path)
    }
}
