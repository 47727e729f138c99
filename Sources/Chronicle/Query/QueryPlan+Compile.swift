/// A query node compiled against a ``QueryPlan``: a tree of closures whose
/// leaves read the record at resolved property indexes.
///
/// Interpreting a ``QueryNode`` per object paid for the enum walk, copies of
/// its payloads and a search for each path's resolved steps; compiled once
/// per evaluation, a leaf such as `score < 100` is one closure call, one
/// array read and one comparison. The leaves' semantics are
/// ``QueryNode``'s own static tests, so both forms agree by construction;
/// every query through a store (and the through-the-store predicate tests
/// against `Predicate.evaluate`) runs this form.
extension QueryPlan {
    /// Whether a row passes; throws where `Predicate.evaluate` would.
    typealias Test = (PlannedRow) throws(QueryError) -> Bool

    /// A compiled test, wrapped. Why a struct: a closure held in an
    /// `Optional` (or any generic container) is stored at its most general
    /// abstraction and every call goes through a reabstraction thunk, which
    /// costs more per object scanned than the test itself. A
    /// struct field keeps the closure's own calling convention.
    struct CompiledTest {
        let accepts: Test
        /// Set when the whole test is one integer comparison on a property
        /// of the object itself (`score < 100`, the commonest scan): the
        /// scan then compares inline instead of calling `accepts`, whose
        /// call cost about as much as the comparison.
        var integerComparison: IntegerComparison?
        /// Accepts every row.
        static var all: CompiledTest { CompiledTest { _ in true } }
    }

    /// `property op constant` on the object's own values, for an integer
    /// constant. A stored value that is not an `.int` goes through the
    /// general comparison, so the answer is exactly
    /// ``QueryNode/compareValues(_:_:_:)``'s.
    struct IntegerComparison {
        let property: Int
        let op: ComparisonOperator
        let constant: Int64
        /// Where every record of the table holds the property's integer, if
        /// the schema says it is always one (an `Int`, not optional) and
        /// where it is (no optional string or other 16-byte kind before it,
        /// see ``RecordStorage/fixedOffset(of:in:)``): a scan then reads it
        /// there without the record's header (see ``RecordView/integer(inSlot:)``).
        let integerSlot: Int?

        /// Whether the object `record` passes.
        ///
        /// No bounds check: a plan resolves `property` against its state's
        /// schema, and every record of a table holds one value per property
        /// of its type (a fold invariant, ``StoreState/_checkInvariants()``).
        @inline(__always)
        func accepts(_ record: RecordView) -> Bool {
            if let value = record.integer(at: property) { return op.apply(value, constant) }
            return QueryNode.compareValues(record[property], op, .int(constant))
        }
    }

    /// The conjunction of `nodes` compiled as one test, or `nil` when there
    /// is none (every object passes). O(size of `nodes`).
    func compile(all nodes: [QueryNode]) -> CompiledTest? {
        switch nodes.count {
        case 0: nil
        case 1: CompiledTest(accepts: compile(nodes[0]), integerComparison: integerComparison(nodes[0]))
        default: CompiledTest(accepts: compile(.and(nodes)))
        }
    }

    /// `node` compiled against this plan's resolved paths. O(size of `node`).
    func compile(_ node: QueryNode) -> Test {
        switch node {
        case .constant(let value):
            return { _ in value }
        case .and(let nodes):
            let tests = nodes.map(compile)
            return { row throws(QueryError) in
                for test in tests where try !test(row) { return false }
                return true
            }
        case .or(let nodes):
            let tests = nodes.map(compile)
            return { row throws(QueryError) in
                for test in tests where try test(row) { return true }
                return false
            }
        case .not(let node):
            let test = compile(node)
            return { row throws(QueryError) in try !test(row) }
        case .compare(let path, let op, .int(let constant)):
            if let comparison = integerComparison(node) {
                return { row in
                    guard comparison.property < row.record.count else { return QueryNode.compareValues(.null, op, .int(constant)) }
                    return comparison.accepts(row.record)
                }
            }
            let read = reader(path)
            return { row in QueryNode.compareValues(read(row) ?? .null, op, .int(constant)) }
        case .compare(let path, let op, let constant):
            let read = reader(path)
            return { row in QueryNode.compareValues(read(row) ?? .null, op, constant) }
        case .string(let path, let op, let constant):
            let read = reader(path)
            return { row in QueryNode.stringMatches(read(row), op, constant) }
        case .oneOf(let path, let constants):
            let read = reader(path)
            return { row in QueryNode.isOneOf(read(row), constants) }
        case .containsElement(let path, let constant):
            let read = reader(path)
            return { row in QueryNode.containsElement(read(row), constant) }
        case .unwrap(let path):
            let read = reader(path)
            return { row throws(QueryError) in try QueryNode.unwrap(read(row), path) }
        case .opaque:
            return { _ in true }
        }
    }

    /// Reads `path` from a row: directly from the record for a property of
    /// the object itself, through ``PlannedRow/value(at:)`` across links.
    private func reader(_ path: PropertyPath) -> (PlannedRow) -> PersistedValue? {
        guard let steps = steps(for: path), !steps.isEmpty else {
            // A property the journal does not have yet reads as its default on every object.
            let absent = path.components.count == 1 ? absentValues[path.components[0]] : nil
            return { _ in absent }
        }
        guard let property = ownProperty(path) else { return { $0.value(at: path) } }
        return { row in row.ownValue(property) }
    }

    /// The index of `path`'s property when it is a non-link property of the object itself.
    private func ownProperty(_ path: PropertyPath) -> Int? {
        guard let steps = steps(for: path), steps.count == 1, steps[0].target == nil else { return nil }
        return steps[0].property
    }

    /// `node` as an ``IntegerComparison``, if it compares a property of the
    /// object itself with an integer constant.
    private func integerComparison(_ node: QueryNode) -> IntegerComparison? {
        guard case .compare(let path, let op, .int(let constant)) = node, let property = ownProperty(path) else { return nil }
        let type = state.schema[table]
        let schema = type.properties[property]
        let slot = schema.type == .int && !schema.isOptional && schema.collection == .none
            ? RecordStorage.fixedOffset(of: property, in: type.properties) : nil
        return IntegerComparison(property: property, op: op, constant: constant, integerSlot: slot)
    }
}
