import Foundation
import Testing
@testable import Chronicle

/// Every catalogued predicate, translated, must give exactly what
/// `Predicate.evaluate` gives on hundreds of random rows: the same Bool, or
/// a throw where the predicate throws.
@Suite("Query matches Predicate.evaluate")
struct QueryOracleTests {
    static let rowsPerPredicate = 400

    @Test(arguments: QueryPredicateCatalog.cases)
    func translatedQueryAgreesWithPredicate(_ testCase: PredicateCase) throws {
        let query = try Query(testCase.predicate, resolver: QueryFixtures.resolve)
        #expect(query.isExact == testCase.exact, "node: \(query.node)")

        let seed = testCase.label.utf8.reduce(UInt64(1469598103934665603)) { ($0 ^ UInt64($1)) &* 1099511628211 }
        var rng = SplitMix64(seed: seed)
        var outcomes: Set<String> = []
        for serial in 0..<Self.rowsPerPredicate {
            let root = QueryFixtures.randomRoot(serial: serial, using: &rng)
            let row = QRootRow(root: root)
            let expected = Result { try testCase.predicate.evaluate(root) }
            let translated = Result { () throws(QueryError) -> Bool in try query.node.evaluate(on: row) }
            switch expected {
            case .success(let value): outcomes.insert("\(value)")
            case .failure: outcomes.insert("throws")
            }

            if query.isExact {
                switch (expected, translated) {
                case let (.success(a), .success(b)):
                    #expect(a == b, "row \(root)")
                case (.failure, .failure):
                    break
                default:
                    Issue.record("predicate \(expected), translation \(translated) for row \(root)")
                }
            } else if case .success(true) = expected {
                // The prefilter may only drop objects the predicate rejects.
                #expect((try? query.node.evaluate(on: row)) != false, "prefilter dropped a match: \(root)")
            }

            let matches = query.matches(row, object: { root })
            #expect(matches == ((try? expected.get()) ?? false), "row \(root)")
        }
        // The random rows exercise both answers, unless the predicate is a constant.
        if !["true", "constant", "empty"].contains(where: testCase.label.contains) {
            #expect(outcomes.count >= 2, "only \(outcomes) over the random rows")
        }
    }

    @Test func catalogueCoversManyForms() {
        #expect(QueryPredicateCatalog.cases.count >= 50)
        #expect(QueryPredicateCatalog.cases.filter { !$0.exact }.count >= 10)
    }
}
