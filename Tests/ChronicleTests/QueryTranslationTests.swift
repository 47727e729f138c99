import Foundation
import Testing
@testable import Chronicle

@Suite("Predicate translation")
struct QueryTranslationTests {
    func node(_ predicate: Predicate<QRoot>) throws -> QueryNode {
        try Query(predicate, resolver: QueryFixtures.resolve).node
    }

    @Test func comparisonsAndFlippedConstants() throws {
        #expect(try node(#Predicate { $0.age >= 18 }) == .compare(["age"], .greaterThanOrEqual, .int(18)))
        #expect(try node(#Predicate { 18 <= $0.age }) == .compare(["age"], .greaterThanOrEqual, .int(18)))
        #expect(try node(#Predicate { 18 > $0.age }) == .compare(["age"], .lessThan, .int(18)))
        #expect(try node(#Predicate { $0.name != "Bob" }) == .compare(["name"], .notEqual, .string("Bob")))
        #expect(try node(#Predicate { $0.level > 3 }) == .compare(["level"], .greaterThan, .int(3)))
        #expect(try node(#Predicate { $0.score <= 0.5 }) == .compare(["score"], .lessThanOrEqual, .double(0.5)))
    }

    @Test func connectives() throws {
        #expect(try node(#Predicate { $0.age >= 18 && $0.address?.city == "Oslo" }) == .and([
            .compare(["age"], .greaterThanOrEqual, .int(18)),
            .compare(["address", "city"], .equal, .string("Oslo")),
        ]))
        #expect(try node(#Predicate { $0.age < 10 || $0.age > 30 || $0.active }) == .or([
            .compare(["age"], .lessThan, .int(10)),
            .compare(["age"], .greaterThan, .int(30)),
            .compare(["active"], .equal, .bool(true)),
        ]))
        #expect(try node(#Predicate { !$0.active }) == .not(.compare(["active"], .equal, .bool(true))))
        #expect(try node(#Predicate { _ in true }) == .constant(true))
        #expect(try node(#Predicate { _ in 1 > 2 }) == .constant(false))
    }

    @Test func optionalChainingNilCoalescingAndForceUnwrap() throws {
        #expect(try node(#Predicate { $0.address?.city == nil }) == .compare(["address", "city"], .equal, .null))
        #expect(try node(#Predicate { $0.address?.owner?.name == "Bob" })
            == .compare(["address", "owner", "name"], .equal, .string("Bob")))
        #expect(try node(#Predicate { $0.address!.city == "Oslo" })
            == .and([.unwrap(["address"]), .compare(["address", "city"], .equal, .string("Oslo"))]))
        #expect(try node(#Predicate { $0.n! > 3 }) == .and([.unwrap(["n"]), .compare(["n"], .greaterThan, .int(3))]))
        // (n ?? 0) > 3: the fallback fails the test, so nil does not match.
        #expect(try node(#Predicate { ($0.n ?? 0) > 3 }) == .and([
            .compare(["n"], .notEqual, .null), .compare(["n"], .greaterThan, .int(3)),
        ]))
        // (n ?? 10) > 3: the fallback passes, so nil matches.
        #expect(try node(#Predicate { ($0.n ?? 10) > 3 }) == .or([
            .compare(["n"], .equal, .null), .compare(["n"], .greaterThan, .int(3)),
        ]))
    }

    @Test func stringsMembershipAndRanges() throws {
        #expect(try node(#Predicate { $0.name.contains("a") }) == .string(["name"], .contains, "a"))
        #expect(try node(#Predicate { $0.name.starts(with: "A") }) == .string(["name"], .beginsWith, "A"))
        let names = ["Ann", "Bob"]
        #expect(try node(#Predicate { names.contains($0.name) }) == .oneOf(["name"], [.string("Ann"), .string("Bob")]))
        #expect(try node(#Predicate { $0.tags.contains("x") }) == .containsElement(["tags"], .string("x")))
        #expect(try node(#Predicate { (10...20).contains($0.age) }) == .and([
            .compare(["age"], .greaterThanOrEqual, .int(10)), .compare(["age"], .lessThanOrEqual, .int(20)),
        ]))
        #expect(try node(#Predicate { (10..<20).contains($0.age) }) == .and([
            .compare(["age"], .greaterThanOrEqual, .int(10)), .compare(["age"], .lessThan, .int(20)),
        ]))
    }

    @Test func constantsOfEveryKind() throws {
        let happy = Mood.happy, low = Priority.low, limits = Limits(minimum: 21)
        let id = QueryFixtures.uuids[0], date = QueryFixtures.base, blob = Data([1, 2]), price = Decimal(3)
        let sad: Mood? = .sad
        #expect(try node(#Predicate { $0.mood == happy }) == .compare(["mood"], .equal, .string("happy")))
        #expect(try node(#Predicate { $0.optMood == sad }) == .compare(["optMood"], .equal, .string("sad")))
        #expect(try node(#Predicate { $0.mood.rawValue == "sad" }) == .compare(["mood"], .equal, .string("sad")))
        #expect(try node(#Predicate { $0.priority == low }) == .compare(["priority"], .equal, .int(0)))
        #expect(try node(#Predicate { limits.minimum <= $0.age }) == .compare(["age"], .greaterThanOrEqual, .int(21)))
        #expect(try node(#Predicate { $0.id == id }) == .compare(["id"], .equal, .uuid(id)))
        #expect(try node(#Predicate { $0.born < date }) == .compare(["born"], .lessThan, .date(date)))
        #expect(try node(#Predicate { $0.blob == blob }) == .compare(["blob"], .equal, .data(blob)))
        #expect(try node(#Predicate { $0.price >= price }) == .compare(["price"], .greaterThanOrEqual, .decimal(price)))
        #expect(try node(#Predicate { ($0.height ?? 0) < 1.5 }) == .or([
            .compare(["height"], .equal, .null), .compare(["height"], .lessThan, .float(1.5)),
        ]))
    }

    @Test func constantConversions() {
        #expect(QueryConstant(Int8(-3))?.value == .int(-3))
        #expect(QueryConstant(UInt32.max)?.value == .int(Int64(UInt32.max)))
        #expect(QueryConstant(URL(string: "https://example.com/a")!)?.value == .string("https://example.com/a"))
        #expect(QueryConstant(Optional<Int>.none as Any)?.value == .null)
        #expect(QueryConstant(Optional<Mood>.some(.meh) as Any)?.value == .string("meh"))
        #expect(QueryConstant(Optional<Optional<Int>>.some(.some(4)) as Any)?.value == .int(4))
        #expect(QueryConstant(UInt64(1)) == nil)
        #expect(QueryConstant(Limits(minimum: 1)) == nil)
        #expect(QueryConstant(Mood.sad)?.preservesOrder == false)
        #expect(QueryConstant(3)?.preservesOrder == true)
    }

    @Test func untranslatablePartsBecomeOpaque() throws {
        #expect(try node(#Predicate { $0.name.count > 3 }) == .opaque)
        #expect(try node(#Predicate { $0.age >= 18 && $0.name.count > 3 })
            == .and([.compare(["age"], .greaterThanOrEqual, .int(18)), .opaque]))
        // An opaque operand of || or ! makes the whole expression opaque.
        #expect(try node(#Predicate { $0.age >= 18 || $0.name.count > 3 }) == .opaque)
        #expect(try node(#Predicate { $0.age >= 18 && !($0.name.count > 3) })
            == .and([.compare(["age"], .greaterThanOrEqual, .int(18)), .opaque]))
        // Enum order is declaration order, not raw-value order.
        let low = Priority.low
        #expect(try node(#Predicate { $0.priority < low }) == .opaque)
    }

    @Test func referencedPaths() throws {
        let query = try Query(#Predicate<QRoot> { $0.age >= 18 && $0.address?.city == "Oslo" && $0.name.count > 3 },
                              resolver: QueryFixtures.resolve)
        #expect(query.node.referencedPaths() == [["age"], ["address", "city"]])
        #expect(query.referencedPaths == [["age"], ["address"], ["address", "city"], ["name"]])
        #expect(!query.isExact)
        #expect(PropertyPath(["address", "city"]).description == "address.city")
    }

    @Test func unknownKeyPathThrows() {
        #expect(throws: QueryError.self) { try node(#Predicate { $0.doubleAge > 3 }) }
        do {
            _ = try node(#Predicate { $0.age > 1 && $0.doubleAge > 3 })
            Issue.record("expected an error")
        } catch let error as QueryError {
            guard case .unknownKeyPath(let keyPath) = error else { Issue.record("\(error)"); return }
            #expect(keyPath.contains("QRoot"))
        } catch {
            Issue.record("\(error)")
        }
        // Also inside parts that are evaluated per object.
        #expect(throws: QueryError.self) { try node(#Predicate { $0.doubleAge % 2 == 0 }) }
        #expect(throws: QueryError.self) { try node(#Predicate { $0.active || $0.doubleAge.description.isEmpty }) }
    }

    @Test func resolverErrorsPropagate() {
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try Query(#Predicate<QRoot> { $0.age > 1 }, resolver: { _ in throw Refused() })
        }
    }

    @Test func evaluationFollowsSwiftOptionalSemantics() throws {
        struct Row: QueryRow {
            var values: [PropertyPath: PersistedValue]
            func value(at path: PropertyPath) -> PersistedValue? { values[path] }
        }
        let broken = Row(values: [:])
        #expect(try QueryNode.compare(["a", "b"], .equal, .string("Oslo")).evaluate(on: broken) == false)
        #expect(try QueryNode.compare(["a", "b"], .notEqual, .string("Oslo")).evaluate(on: broken) == true)
        #expect(try QueryNode.compare(["a", "b"], .equal, .null).evaluate(on: broken) == true)
        #expect(try QueryNode.compare(["a", "b"], .lessThan, .int(3)).evaluate(on: broken) == false)
        #expect(try QueryNode.string(["a", "b"], .contains, "").evaluate(on: broken) == false)
        #expect(throws: QueryError.unwrappedNil(["a"])) { try QueryNode.unwrap(["a"]).evaluate(on: broken) }
        let mixed = Row(values: [["x"]: .int(2)])
        #expect(try QueryNode.compare(["x"], .lessThan, .double(2.5)).evaluate(on: mixed))
        #expect(try QueryNode.compare(["x"], .equal, .double(2)).evaluate(on: mixed))
        let nan = Row(values: [["x"]: .double(.nan)])
        for op in ComparisonOperator.allCases {
            #expect(try QueryNode.compare(["x"], op, .double(.nan)).evaluate(on: nan) == (op == .notEqual))
        }
    }
}
