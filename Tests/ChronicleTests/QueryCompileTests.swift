import Foundation
import Testing
@testable import Chronicle

/// The compiled form of a query (closures over resolved property indexes)
/// answers exactly as the interpreted `QueryNode.evaluate` on the same row.
@Suite("Query: compiled form agrees with the interpreted one")
struct QueryCompileTests {
    static let schema = TypeSchema(name: "QcItem", properties: [
        PropertySchema(name: "count", type: .int),
        PropertySchema(name: "ratio", type: .double),
        PropertySchema(name: "maybe", type: .int, isOptional: true),
        PropertySchema(name: "name", type: .string),
    ])

    static func state() throws -> StoreState {
        var state = StoreState()
        var changes = ChangeSetBuilder()
        try state.apply(.defineType(schema), changes: &changes)
        let rows: [[PersistedValue]] = [
            [.int(-5), .double(-5.5), .null, .string("a")],
            [.int(0), .double(0), .int(0), .string("")],
            [.int(99), .double(99.5), .int(100), .string("b")],
            [.int(100), .double(100), .null, .string("c")],
            [.int(.max), .double(.infinity), .int(.min), .string("d")],
            [.int(.min), .double(.nan), .int(101), .string("e")],
        ]
        for (index, values) in rows.enumerated() {
            try state.apply(.create(table: 0, key: ObjectKey(Int64(index + 1)), values: values), changes: &changes)
        }
        return state
    }

    @Test(arguments: [ComparisonOperator.equal, .notEqual, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual])
    func integerComparisonsAgree(op: ComparisonOperator) throws {
        let state = try Self.state()
        for property in ["count", "ratio", "maybe", "name", "missing"] {
            for constant: Int64 in [-5, 0, 99, 100, 101, .max, .min] {
                let node = QueryNode.compare([property], op, .int(constant))
                let plan = QueryPlan(nodes: [node], table: 0, state: state)
                let compiled = plan.compile(node)
                var accepted: [ObjectKey] = []
                for (key, record) in state.objects(table: 0) {
                    try plan.withRow(key, record) { row in
                        let interpreted = try node.evaluate(on: row)
                        #expect(try compiled(row) == interpreted, "\(property) \(op) \(constant) on \(record.values)")
                        if interpreted { accepted.append(key) }
                    }
                }
                // The scan compares inline when the test is this one comparison.
                let test = try #require(plan.compile(all: [node]))
                #expect((test.integerComparison != nil) == (property != "missing"))
                var scanned: [ObjectKey] = []
                _ = plan.scan(from: ObjectKey(0), accepting: test, into: &scanned)
                #expect(scanned == accepted, "\(property) \(op) \(constant)")
            }
        }
    }

    @Test func logicAndOtherLeavesAgree() throws {
        let state = try Self.state()
        let nodes: [QueryNode] = [
            .and([.compare(["count"], .greaterThan, .int(0)), .not(.compare(["ratio"], .lessThan, .double(100)))]),
            .or([.string(["name"], .contains, "a"), .oneOf(["maybe"], [.int(0), .null])]),
            .unwrap(["maybe"]),
            .constant(false),
        ]
        for node in nodes {
            let plan = QueryPlan(nodes: [node], table: 0, state: state)
            let compiled = plan.compile(node)
            for (key, record) in state.objects(table: 0) {
                let (interpreted, fast) = plan.withRow(key, record) { row in
                    (Result { () throws(QueryError) -> Bool in try node.evaluate(on: row) },
                     Result { () throws(QueryError) -> Bool in try compiled(row) })
                }
                switch (interpreted, fast) {
                case let (.success(a), .success(b)): #expect(a == b, "\(node) on \(record.values)")
                case (.failure, .failure): break
                default: Issue.record("\(node) on \(record.values): \(interpreted) vs \(fast)")
                }
            }
        }
    }
}
