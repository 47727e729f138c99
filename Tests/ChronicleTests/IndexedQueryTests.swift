import Foundation
import Testing
@testable import Chronicle

final class Badge: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(indexed: true) var label = ""
    @Persisted(indexed: true) var level: Int?
    @Persisted(indexed: true) var seen = Date(timeIntervalSinceReferenceDate: 0)
}
extension Badge: @unchecked Sendable {}

/// An equality on an indexed property reads the index. Where the index's
/// notion of equal is the query's (integers, strings, booleans, ids, nil),
/// its answer is used as it is; otherwise (dates, which hold a `Double`, and
/// conjunctions) each candidate is tested. Either way the result is what
/// `Predicate.evaluate` accepts over every object.
@Suite("Indexed queries")
struct IndexedQueryTests {
    // "é" and "e\u{301}" are canonically equal, as are "K" and the KELVIN
    // SIGN: the index must file each pair together (see `SeededHash`).
    static let labels = ["é", "e\u{301}", "E", "", "ok", "K", "\u{212A}", "a;b", "a\u{037E}b"]
    static let days = [0.0, -0.0, 86_400].map(Date.init(timeIntervalSinceReferenceDate:))

    static func populate() throws -> Store {
        let store = try Store(configuration: .inMemory())
        try store.write {
            for id in 0..<200 {
                let badge = Badge()
                badge.id = id
                badge.label = labels[id % labels.count]
                badge.level = id % 7 == 0 ? nil : id % 4
                badge.seen = days[id % days.count]
                store.add(badge)
            }
        }
        return store
    }

    static let kelvin = "\u{212A}", greekQuestionMark = "a\u{037E}b"
    static let composed = "é", epoch = Date(timeIntervalSinceReferenceDate: 0), three = 3, missing: Int? = nil, key = 42
    static let predicates: [(name: String, exact: Bool, predicate: Predicate<Badge>)] = [
        ("label == é", true, #Predicate { $0.label == composed }),
        ("label == KELVIN SIGN", true, #Predicate { $0.label == kelvin }),
        ("label == a;b with GREEK QUESTION MARK", true, #Predicate { $0.label == greekQuestionMark }),
        ("level == 3", true, #Predicate { $0.level == three }),
        ("level == nil", true, #Predicate { $0.level == missing }),
        ("id == 42", true, #Predicate { $0.id == key }),
        ("seen == epoch", false, #Predicate { $0.seen == epoch }),
        ("label == é && level == 3", false, #Predicate { $0.label == composed && $0.level == three }),
    ]

    @Test(arguments: predicates.indices)
    func indexAnswersMatchEvaluation(_ index: Int) throws {
        let (name, exact, predicate) = Self.predicates[index]
        let store = try Self.populate()
        let everyBadge = Array(store.objects(Badge.self))
        let expected = try everyBadge.filter { try predicate.evaluate($0) }.map(\.id)
        let counter = EvaluationCounter()
        let ids = EvaluationCounter.$current.withValue(counter) { store.objects(Badge.self).filter(predicate).map(\.id) }
        #expect(ids == expected, "\(name)")
        if exact {
            #expect(counter.examined == 0, "\(name): the index answers exactly, no object is read")
        } else {
            #expect(counter.examined > 0 && counter.examined < everyBadge.count, "\(name): only the index's candidates are tested")
        }
    }
}
