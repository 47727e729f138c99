import Foundation

// `&&`, `||` and `!`. An opaque operand of `||` or `!` makes the whole
// expression opaque, so that opaque nodes only ever stand as conjuncts of the
// top level, where treating them as `true` keeps the rest a sound prefilter.

extension PredicateExpressions.Conjunction: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        .conjunction([try translator.node(for: lhs), try translator.node(for: rhs)])
    }
}

extension PredicateExpressions.Disjunction: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        let node = QueryNode.disjunction([try translator.node(for: lhs), try translator.node(for: rhs)])
        return node.containsOpaque ? .opaque : node
    }
}

extension PredicateExpressions.Negation: QueryTranslatable {
    func queryNode(_ translator: inout PredicateTranslator) throws -> QueryNode {
        let node = try translator.node(for: wrapped)
        return node.containsOpaque ? .opaque : .not(node)
    }
}
