/// Chronicle's own form of a filter: a boolean tree over persisted property
/// paths and constants, which the store can evaluate against its state
/// without materialising objects, and whose paths say which properties a
/// query depends on.
///
/// ``PredicateTranslator`` builds it from a Foundation `Predicate`.
///
/// ## Nil
/// A property path can come back `nil` from a row (a link or embedded object
/// on the way is `nil`) or hold ``PersistedValue/null``. Both mean the Swift
/// optional chain produced `nil`, and comparisons follow Swift's optional
/// semantics: `nil == "Oslo"` is false, `nil != "Oslo"` is true,
/// `nil == nil` is true, and an ordering comparison with `nil` is false
/// (`#Predicate` only orders non-optionals, through `??` or `!`).
///
/// ## Opaque parts
/// ``opaque`` stands for a part of the predicate Chronicle cannot translate.
/// Translation keeps it only as a conjunct of the top level (an `||` or `!`
/// with an opaque operand becomes opaque as a whole), where it evaluates to
/// `true`: the translated conjuncts then act as a prefilter, and the
/// predicate itself decides for each object that passes (see ``Query``).
indirect enum QueryNode: Hashable, Sendable {
    /// Always true or always false.
    case constant(Bool)
    /// All of the nodes hold; evaluated left to right, stopping at the first
    /// false one, like `&&`.
    case and([QueryNode])
    /// Any of the nodes holds; evaluated left to right, stopping at the first
    /// true one, like `||`.
    case or([QueryNode])
    /// The node does not hold.
    case not(QueryNode)
    /// The value at the path compared with a constant; `.null` is `nil`.
    case compare(PropertyPath, ComparisonOperator, PersistedValue)
    /// A string test of the value at the path; false when it is `nil`.
    case string(PropertyPath, StringOperator, String)
    /// The value at the path equals one of the constants
    /// (`[a, b].contains($0.x)`).
    case oneOf(PropertyPath, [PersistedValue])
    /// The list or set at the path has an element equal to the constant
    /// (`$0.tags.contains("x")`).
    case containsElement(PropertyPath, PersistedValue)
    /// True when the value at the path is not `nil`; otherwise evaluation
    /// throws ``QueryError/unwrappedNil(_:)``, as a force unwrap (`!`) in
    /// the predicate would.
    case unwrap(PropertyPath)
    /// A part of the predicate that only the predicate itself can evaluate.
    case opaque

    /// Whether an ``opaque`` node occurs anywhere in the tree. O(n) in the
    /// number of nodes.
    var containsOpaque: Bool {
        switch self {
        case .opaque: true
        case .and(let nodes), .or(let nodes): nodes.contains { $0.containsOpaque }
        case .not(let node): node.containsOpaque
        case .constant, .compare, .string, .oneOf, .containsElement, .unwrap: false
        }
    }

    /// The property paths the translated parts of the query read: when none
    /// of their values changes, neither does the query's answer, unless the
    /// query ``containsOpaque`` (an opaque part may read anything).
    /// O(n) in the number of nodes.
    func referencedPaths() -> Set<PropertyPath> {
        var paths: Set<PropertyPath> = []
        collectPaths(into: &paths)
        return paths
    }

    private func collectPaths(into paths: inout Set<PropertyPath>) {
        switch self {
        case .constant, .opaque: break
        case .and(let nodes), .or(let nodes): for node in nodes { node.collectPaths(into: &paths) }
        case .not(let node): node.collectPaths(into: &paths)
        case .compare(let path, _, _), .string(let path, _, _), .oneOf(let path, _), .containsElement(let path, _),
             .unwrap(let path):
            paths.insert(path)
        }
    }

    /// `nodes` joined with `&&`, flattening nested conjunctions. O(n).
    static func conjunction(_ nodes: [QueryNode]) -> QueryNode {
        let flat = nodes.flatMap { node -> [QueryNode] in
            if case .and(let inner) = node { inner } else { [node] }
        }
        return flat.count == 1 ? flat[0] : .and(flat)
    }

    /// `nodes` joined with `||`, flattening nested disjunctions. O(n).
    static func disjunction(_ nodes: [QueryNode]) -> QueryNode {
        let flat = nodes.flatMap { node -> [QueryNode] in
            if case .or(let inner) = node { inner } else { [node] }
        }
        return flat.count == 1 ? flat[0] : .or(flat)
    }
}
