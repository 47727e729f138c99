extension QueryNode {
    /// Whether `row` satisfies this node, giving exactly the answer the
    /// translated `Predicate` gives for the same object, with the same left
    /// to right short-circuiting of `&&` and `||`.
    ///
    /// An ``opaque`` node evaluates to `true`: the caller must still run the
    /// predicate itself (``Query/matches(_:object:)`` does).
    ///
    /// - Throws: ``QueryError/unwrappedNil(_:)`` where `Predicate.evaluate`
    ///   would throw because a force unwrap met `nil`.
    /// - Complexity: O(n) in the number of nodes, times the cost of
    ///   ``QueryRow/value(at:)``; `oneOf` is O(k) in its constants,
    ///   `containsElement` O(k) in the collection's elements, and the
    ///   string tests O(length) (O(n · m) for `contains`).
    func evaluate(on row: some QueryRow) throws(QueryError) -> Bool {
        switch self {
        case .constant(let value):
            return value
        case .and(let nodes):
            for node in nodes where try !node.evaluate(on: row) { return false }
            return true
        case .or(let nodes):
            for node in nodes where try node.evaluate(on: row) { return true }
            return false
        case .not(let node):
            return try !node.evaluate(on: row)
        case .compare(let path, let op, let constant):
            return Self.compareValues(row.value(at: path) ?? .null, op, constant)
        case .string(let path, let op, let constant):
            return Self.stringMatches(row.value(at: path), op, constant)
        case .oneOf(let path, let constants):
            return Self.isOneOf(row.value(at: path), constants)
        case .containsElement(let path, let constant):
            return Self.containsElement(row.value(at: path), constant)
        case .unwrap(let path):
            return try Self.unwrap(row.value(at: path), path)
        case .opaque:
            return true
        }
    }

    // The leaf tests, shared with the compiled form (``QueryPlan/compile(_:)``).

    static func stringMatches(_ value: PersistedValue?, _ op: StringOperator, _ constant: String) -> Bool {
        guard case .string(let value)? = value else { return false }
        return op.apply(value, constant)
    }

    static func isOneOf(_ value: PersistedValue?, _ constants: [PersistedValue]) -> Bool {
        let value = value ?? .null
        return constants.contains { compareValues(value, .equal, $0) }
    }

    static func containsElement(_ value: PersistedValue?, _ constant: PersistedValue) -> Bool {
        switch value {
        case .list(let elements)?, .set(let elements)?:
            return elements.contains { compareValues($0, .equal, constant) }
        default:
            return false
        }
    }

    static func unwrap(_ value: PersistedValue?, _ path: PropertyPath) throws(QueryError) -> Bool {
        guard let value, !value.isNull else { throw .unwrappedNil(path) }
        return true
    }

    /// Compares two values the way Swift compares the types they came from:
    /// each case with its Swift type's operators, `Int` against `Double`
    /// through `Double`, `nil` per Swift optionals (equal only to `nil`,
    /// never ordered). Values of unrelated cases are unequal. O(1) for
    /// scalars, O(n) for strings, data and collections.
    static func compareValues(_ lhs: PersistedValue, _ op: ComparisonOperator, _ rhs: PersistedValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): op == .equal
        case (.null, _), (_, .null): op == .notEqual
        case let (.bool(a), .bool(b)): op.applyEquality(a, b)
        case let (.int(a), .int(b)): op.apply(a, b)
        case let (.float(a), .float(b)): op.apply(a, b)
        case let (.double(a), .double(b)): op.apply(a, b)
        case let (.int(a), .double(b)): op.apply(Double(a), b)
        case let (.double(a), .int(b)): op.apply(a, Double(b))
        case let (.float(a), .double(b)): op.apply(Double(a), b)
        case let (.double(a), .float(b)): op.apply(a, Double(b))
        case let (.string(a), .string(b)): op.apply(a, b)
        case let (.data(a), .data(b)): op.applyEquality(a, b)
        case let (.date(a), .date(b)): op.apply(a, b)
        case let (.uuid(a), .uuid(b)): op.apply(a, b)
        case let (.objectId(a), .objectId(b)): op.apply(a, b)
        case let (.decimal(a), .decimal(b)): op.apply(a, b)
        case let (.link(a), .link(b)): op.apply(a, b)
        case let (.list(a), .list(b)), let (.set(a), .set(b)): op.applyEquality(a, b)
        case let (.map(a), .map(b)): op.applyEquality(a, b)
        default: op == .notEqual
        }
    }
}
