import Foundation
import Testing
@testable import Chronicle

enum WalkerMood: String, PersistableEnum, CaseIterable { case calm, happy, grumpy }

final class Walker: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var age = 0
    @Persisted var score = 0.0
    @Persisted var active = false
    @Persisted var nickname: String?
    @Persisted var mood = WalkerMood.calm
    @Persisted var birthday: Date?
    @Persisted var home: Address?
    @Persisted var buddy: Walker?
    var initial: String { String(name.prefix(1)) }
}
extension Walker: @unchecked Sendable {}

/// Every query form, translated or not, must return exactly the objects
/// that `Predicate.evaluate` accepts when run over every object.
@Suite("Queries through the store")
struct QueryThroughStoreTests {
    static let names = ["Ann", "Bob", "Cy", "Dee", "Eve", "ann", "Álvaro", ""]
    static let cities = ["Oslo", "Bergen", "oslo"]

    static func populate(seed: UInt64, count: Int) throws -> Store {
        var rng = SplitMix64(seed: seed)
        let store = try Store(configuration: .inMemory())
        try store.write {
            var walkers: [Walker] = []
            for id in 0..<count {
                let walker = Walker()
                walker.id = id
                walker.name = names[Int(rng.next() % UInt64(names.count))]
                walker.age = Int(rng.next() % 90)
                walker.score = Double(Int(rng.next() % 2_000)) / 10 - 50
                walker.active = rng.next() % 2 == 0
                walker.nickname = rng.next() % 3 == 0 ? nil : names[Int(rng.next() % UInt64(names.count))]
                walker.mood = WalkerMood.allCases[Int(rng.next() % 3)]
                walker.birthday = rng.next() % 4 == 0 ? nil : Date(timeIntervalSince1970: Double(rng.next() % 1_000_000_000))
                if rng.next() % 3 != 0 {
                    let home = Address()
                    home.city = cities[Int(rng.next() % UInt64(cities.count))]
                    walker.home = home
                }
                if let buddy = walkers.randomElement(using: &rng), rng.next() % 2 == 0 { walker.buddy = buddy }
                walkers.append(walker)
            }
            store.add(walkers)
        }
        return store
    }

    static let limit = 40
    static let cutoff = Date(timeIntervalSince1970: 500_000_000)
    static let happy = WalkerMood.happy
    static let predicates: [(String, Predicate<Walker>)] = [
        ("age ==", #Predicate { $0.age == 40 }),
        ("age !=", #Predicate { $0.age != 40 }),
        ("age <", #Predicate { $0.age < 30 }),
        ("age >= captured", #Predicate { $0.age >= limit }),
        ("constant first", #Predicate { 18 <= $0.age }),
        ("double >", #Predicate { $0.score > 12.5 }),
        ("bool", #Predicate { $0.active }),
        ("!bool", #Predicate { !$0.active }),
        ("and", #Predicate { $0.active && $0.age > 50 }),
        ("or", #Predicate { $0.age < 10 || $0.score > 100 }),
        ("not and", #Predicate { !($0.active && $0.age > 20) }),
        ("string ==", #Predicate { $0.name == "Ann" }),
        ("string <", #Predicate { $0.name < "Cy" }),
        ("contains", #Predicate { $0.name.contains("n") }),
        ("starts", #Predicate { $0.name.starts(with: "A") }),
        ("optional == nil", #Predicate { $0.nickname == nil }),
        ("optional != nil", #Predicate { $0.nickname != nil }),
        ("optional ==", #Predicate { $0.nickname == "Bob" }),
        ("nil coalesce", #Predicate { ($0.nickname ?? "none") == "none" }),
        ("enum", #Predicate { $0.mood == happy }),
        ("enum raw", #Predicate { $0.mood.rawValue == "grumpy" }),
        ("date <", #Predicate { $0.birthday != nil && $0.birthday! < cutoff }),
        ("embedded", #Predicate { $0.home?.city == "Oslo" }),
        ("embedded nil", #Predicate { $0.home == nil }),
        ("link", #Predicate { $0.buddy?.age ?? 0 > 45 }),
        ("link chain", #Predicate { $0.buddy?.home?.city == "Bergen" }),
        ("in list", #Predicate { [3, 5, 8].contains($0.age) }),
        ("range", #Predicate { (20...30).contains($0.age) }),
        ("untranslated count", #Predicate { $0.name.count > 2 }),
        ("untranslated arithmetic", #Predicate { $0.age * 2 > 100 }),
        ("two properties", #Predicate { $0.age > ($0.buddy?.age ?? 0) }),
        ("mixed", #Predicate { $0.active && $0.name.count == 3 }),
        ("computed property", #Predicate { $0.initial == "A" }),
        ("ternary", #Predicate { ($0.active ? $0.age : 0) > 30 }),
    ]

    @Test(arguments: [UInt64(1), 2, 3])
    func everyFormMatchesPredicateEvaluate(seed: UInt64) throws {
        let store = try Self.populate(seed: seed, count: 400)
        let all = Array(store.objects(Walker.self))
        for (name, predicate) in Self.predicates {
            let expected = try all.filter { try predicate.evaluate($0) }.map(\.id)
            let actual = store.objects(Walker.self).filter(predicate).map(\.id)
            #expect(actual == expected, "\(name): \(actual.count) vs \(expected.count)")
        }
    }

    /// An integer comparison alone is scanned by a loop compiled for its
    /// operator: every operator, over leaves made sparse by deletions, on a
    /// property holding nulls too, and resumed part-way, must give what
    /// `Predicate.evaluate` gives.
    @Test func integerComparisonScansMatchPredicateEvaluate() throws {
        let store = try scratchStore()
        try store.write {
            for id in 0..<500 {
                let object = AllTypes()
                object.id = id
                object.int = (id * 37) % 101 - 50
                object.optInt = id % 5 == 0 ? nil : id % 13
                store.add(object)
            }
        }
        try store.write {
            for object in store.objects(AllTypes.self) where object.id % 7 == 3 || (130..<190).contains(object.id) {
                store.delete(object)
            }
        }
        let all = Array(store.objects(AllTypes.self))
        let predicates: [(String, Predicate<AllTypes>)] = [
            ("==", #Predicate { $0.int == 7 }),
            ("!=", #Predicate { $0.int != 7 }),
            ("<", #Predicate { $0.int < 10 }),
            ("<=", #Predicate { $0.int <= 10 }),
            (">", #Predicate { $0.int > 20 }),
            (">=", #Predicate { $0.int >= 20 }),
            ("optional ==", #Predicate { $0.optInt == 4 }),
            ("optional !=", #Predicate { $0.optInt != 4 }),
        ]
        for (name, predicate) in predicates {
            let expected = try all.filter { try predicate.evaluate($0) }.map(\.id)
            #expect(!expected.isEmpty, "\(name)")
            let results = store.objects(AllTypes.self).filter(predicate)
            #expect(results.map(\.id) == expected, "\(name)")
            #expect(results.count == expected.count, "\(name)")
            #expect(store.objects(AllTypes.self).filter(predicate).first?.id == expected.first, "\(name)")
            #expect(store.objects(AllTypes.self).filter(predicate)[expected.count / 2].id == expected[expected.count / 2], "\(name)")
        }
    }

    @Test func translatedFormsAreExactAndUntranslatedOnesAreNot() throws {
        for (name, predicate) in Self.predicates {
            let query = try Query(predicate, resolver: ResultsQuery<Walker>.resolve)
            let expectedOpaque = name.hasPrefix("untranslated") || ["two properties", "mixed", "computed property", "ternary"].contains(name)
            #expect(query.isExact != expectedOpaque, "\(name)")
        }
    }

    @Test func sortingMatchesSwiftSorting() throws {
        let store = try Self.populate(seed: 9, count: 300)
        let all = Array(store.objects(Walker.self))
        let expected = all.sorted { ($0.name, $0.age, $0.id) < ($1.name, $1.age, $1.id) }.map(\.id)
        let actual = store.objects(Walker.self).sorted(by: \.age).sorted(by: \.name).map(\.id)
        #expect(actual == expected)
        let byCity = store.objects(Walker.self).sorted(by: \.home?.city, ascending: false).map { $0.home?.city }
        #expect(byCity == all.map { $0.home?.city }.sorted { ($0 ?? "") > ($1 ?? "") })
    }

    /// A sorted (and a distinct) iteration hands each element the record its
    /// scan kept: every element must read its own object's values, also
    /// after a later commit changed them.
    @Test func sortedAndDistinctElementsReadTheirOwnValues() throws {
        let store = try Self.populate(seed: 11, count: 300)
        let plain = Array(store.objects(Walker.self)).map { (id: $0.id, name: $0.name, age: $0.age) }
        let matching = plain.filter { $0.age < 45 }
        let sorted = store.objects(Walker.self).filter(#Predicate { $0.age < 45 }).sorted(by: \.name)
        let expected = matching.sorted { ($0.name, $0.id) < ($1.name, $1.id) }
        let elements = Array(sorted)
        #expect(elements.map(\.id) == expected.map(\.id))
        #expect(elements.map(\.name) == expected.map(\.name))
        #expect(elements.map(\.age) == expected.map(\.age))

        let distinct = Array(store.objects(Walker.self).filter(#Predicate { $0.age < 45 }).distinct(by: [\.name]))
        var seen = Set<String>()
        let firsts = matching.filter { seen.insert($0.name).inserted }
        #expect(distinct.map(\.id) == firsts.map(\.id))
        #expect(distinct.map(\.name) == firsts.map(\.name))

        try store.write { for walker in elements { walker.age += 100 } }
        #expect(elements.map(\.age) == expected.map { $0.age + 100 })
    }
}
