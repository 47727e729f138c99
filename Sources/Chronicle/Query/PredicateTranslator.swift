import Foundation

/// A part of a predicate that produces a `Bool` and knows its
/// ``QueryNode``. Foundation's `PredicateExpressions` types conform in
/// `PredicateExpressions+Translation.swift`.
protocol QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode
}

/// A part of a predicate that produces a value and knows its
/// ``QueryOperand``.
protocol ValueTranslatable {
    func queryOperand(_ translator: inout PredicateTranslator) throws -> QueryOperand
}

/// Translates a Foundation `Predicate` into a ``QueryNode``.
///
/// It walks the predicate's expression tree: every expression type it knows
/// (see ``QueryTranslatable`` and ``ValueTranslatable``) translates itself
/// and asks the translator for its operands; anything else becomes
/// ``QueryNode/opaque``, after its sub-expressions have been walked all the
/// same (by reflection), so that every key path the predicate mentions is
/// checked against the resolver.
struct PredicateTranslator {
    private let resolver: KeyPathResolver
    private var bindings: [PredicateExpressions.VariableID: PathOperand] = [:]
    /// Every property path a key path of the predicate resolved to,
    /// translated or not, including intermediate ones (`address` for
    /// `address.city`).
    private(set) var resolvedPaths: Set<PropertyPath> = []

    init(resolver: @escaping KeyPathResolver) {
        self.resolver = resolver
    }

    /// Translates `predicate`, with `resolver` mapping its key paths to
    /// persisted properties. O(n) in the size of the expression tree.
    ///
    /// - Throws: ``QueryError/unknownKeyPath(_:)`` when a key path of the
    ///   predicate is not persisted (the resolver returns `nil`), and
    ///   whatever the resolver throws.
    static func translate<Root>(_ predicate: Predicate<Root>,
                                resolver: @escaping KeyPathResolver) throws -> (node: QueryNode, paths: Set<PropertyPath>) {
        var translator = PredicateTranslator(resolver: resolver)
        translator.bind(predicate.variable.key, to: PathOperand(path: .root))
        let node = try translator.node(for: predicate.expression)
        return (node, translator.resolvedPaths)
    }

    /// The node for a `Bool` expression; ``QueryNode/opaque`` for an
    /// expression type the translator does not know.
    mutating func node(for expression: Any) throws -> QueryNode {
        if let translatable = expression as? any QueryTranslatable {
            return try translatable.queryNode(&self)
        }
        try visitUntranslatable(expression)
        return .opaque
    }

    /// The operand for a value expression; ``QueryOperand/opaque`` for an
    /// expression type the translator does not know.
    mutating func operand(for expression: Any) throws -> QueryOperand {
        if let translatable = expression as? any ValueTranslatable {
            return try translatable.queryOperand(&self)
        }
        try visitUntranslatable(expression)
        return .opaque
    }

    /// Walks the sub-expressions of an expression that is not translated,
    /// so that their key paths are resolved (and rejected when unknown).
    private mutating func visitUntranslatable(_ expression: Any) throws {
        for child in Mirror(reflecting: expression).children {
            if child.value is any ValueTranslatable {
                _ = try operand(for: child.value)
            } else if child.value is any QueryTranslatable {
                _ = try node(for: child.value)
            } else if child.value is any PredicateExpression {
                try visitUntranslatable(child.value)
            }
        }
    }

    /// The operand a predicate variable stands for, if it is bound.
    func operand(forVariable key: PredicateExpressions.VariableID) -> PathOperand? {
        bindings[key]
    }

    /// Runs `body` with `variable` standing for `operand` (an optional
    /// chain's unwrapped value).
    mutating func with<T>(_ variable: PredicateExpressions.VariableID, boundTo operand: PathOperand,
                          _ body: (inout PredicateTranslator) throws -> T) rethrows -> T {
        let previous = bindings[variable]
        bindings[variable] = operand
        defer { bindings[variable] = previous }
        return try body(&self)
    }

    private mutating func bind(_ variable: PredicateExpressions.VariableID, to operand: PathOperand) {
        bindings[variable] = operand
    }

    /// `keyPath`, applied to the value at `base`, as an operand.
    ///
    /// A key path on a value the store keeps whole (a string, a number, a
    /// date, a collection: `$0.name.count`) is computed by Swift, so it is
    /// opaque; `rawValue` of a raw-representable value is the value's
    /// persisted form itself. Any other key path goes to the resolver.
    mutating func apply(_ keyPath: AnyKeyPath, to base: PathOperand, valueType: Any.Type) throws -> QueryOperand {
        if let enumType = valueType as? any (RawRepresentable & CaseIterable).Type,
           enumType.keyPathReadsRawValue(keyPath) {
            return .path(base)
        }
        if valueType is any QueryConstantConvertible.Type || valueType is any Sequence.Type
            || valueType is any RawRepresentable.Type {
            return .opaque
        }
        let resolved: PropertyPath?
        do {
            resolved = try resolver(keyPath)
        } catch let computed as ComputedKeyPath {
            // Reads persisted properties but computes from them (a
            // transformed projected property): evaluated per object.
            for dependency in computed.dependencies { resolvedPaths.insert(base.path.appending(dependency)) }
            return .opaque
        }
        guard let resolved else {
            throw QueryError.unknownKeyPath(KeyPathMapping.describe(keyPath))
        }
        var operand = base
        operand.path = base.path.appending(resolved)
        resolvedPaths.insert(operand.path)
        return .path(operand)
    }
}

extension RawRepresentable where Self: CaseIterable {
    /// Whether `keyPath` gives every case's raw value (`\.rawValue` does),
    /// so that it reads the persisted form of the value itself. Key path
    /// identity cannot tell: `\Self.rawValue` written generically is a
    /// different key path from the concrete `\Mood.rawValue` a predicate
    /// holds. O(number of cases).
    fileprivate static func keyPathReadsRawValue(_ keyPath: AnyKeyPath) -> Bool {
        guard let typed = keyPath as? KeyPath<Self, RawValue> else { return false }
        return allCases.allSatisfy { value in
            guard let read = QueryConstant(value[keyPath: typed]), let raw = QueryConstant(value.rawValue) else { return false }
            return read == raw
        }
    }
}
