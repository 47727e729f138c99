import Foundation

/// A `Predicate` over a persisted type, translated for the store: the
/// ``QueryNode`` the store evaluates against its state, plus the predicate
/// itself for the parts that do not translate.
///
/// ## Which objects match
/// When the whole predicate translates (``isExact``), the node alone decides.
/// Otherwise the translated conjuncts of the top level prefilter, and
/// `Predicate.evaluate` decides for each object that passes: for
/// `$0.age >= 18 && $0.name.count > 3`, only adults are materialised and
/// handed to the predicate. Either way the answer is the predicate's own; an
/// object for which the predicate throws (a force unwrap meets `nil`) does
/// not match.
///
/// ## Key paths that are not persisted
/// Every key path in the predicate must name a persisted property, even in
/// parts that are evaluated per object, so a computed property cannot be
/// queried at all: building the query throws
/// ``QueryError/unknownKeyPath(_:)``. Key paths applied to a persisted value
/// (`$0.name.count`, `$0.birthday.timeIntervalSince1970`) are fine: Swift
/// computes them from the stored value.
struct Query<Root>: Sendable {
    /// The predicate as written.
    let predicate: Predicate<Root>
    /// Its translation.
    let node: QueryNode
    /// The persisted properties the predicate reads through its key paths,
    /// translated or not; for an exact query, no other property can change
    /// its answer. Key paths inside closures (`$0.dogs.contains { … }`) are
    /// not resolved, so an inexact query may read more.
    let referencedPaths: Set<PropertyPath>

    /// Translates `predicate`, mapping its key paths with `resolver`.
    ///
    /// - Throws: ``QueryError/unknownKeyPath(_:)`` for a key path that is
    ///   not persisted, and whatever `resolver` throws.
    /// - Complexity: O(n) in the size of the predicate's expression tree.
    init(_ predicate: Predicate<Root>, resolver: @escaping KeyPathResolver) throws {
        self.predicate = predicate
        (node, referencedPaths) = try PredicateTranslator.translate(predicate, resolver: resolver)
    }

    /// Whether the node alone decides, without running the predicate.
    var isExact: Bool { !node.containsOpaque }

    /// Whether the object `row` describes matches: what
    /// `predicate.evaluate(object())` returns, `false` where it throws.
    /// `object` is only called for an inexact query's prefilter survivors.
    ///
    /// - Complexity: that of ``QueryNode/evaluate(on:)``, plus the
    ///   predicate's own evaluation when the query is not exact.
    func matches(_ row: some QueryRow, object: () -> Root) -> Bool {
        let prefilter: Bool
        do {
            prefilter = try node.evaluate(on: row)
        } catch {
            // Exact: the predicate would throw too. Inexact: an opaque
            // conjunct before the failing one might have made it `false`
            // instead; either way the object does not match.
            return false
        }
        guard prefilter else { return false }
        if isExact { return true }
        return (try? predicate.evaluate(object())) ?? false
    }
}
