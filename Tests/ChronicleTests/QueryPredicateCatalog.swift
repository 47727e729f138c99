import Foundation
import Testing
@testable import Chronicle

/// A literal `#Predicate` with a label and whether it should translate
/// completely.
struct PredicateCase: Sendable, CustomTestStringConvertible {
    var label: String
    var exact: Bool
    var predicate: Predicate<QRoot>
    var testDescription: String { label }
}

/// Every translated form, plus untranslatable ones, for the oracle test.
enum QueryPredicateCatalog {
    static let happy = Mood.happy
    static let sadOpt: Mood? = .sad
    static let low = Priority.low
    static let cutoff = QueryFixtures.base
    static let someID = QueryFixtures.uuids[1]
    static let blob = Data([7])
    static let price = Decimal(1)
    static let limits = Limits(minimum: 21)
    static let names = ["Ann", "Bob", "é"]
    static let optionalNumbers: [Int?] = [1, nil, 5]
    static let cities: Set<String> = ["Oslo", "Bergen"]

    static var cases: [PredicateCase] {
        let happy = happy, sadOpt = sadOpt, low = low, cutoff = cutoff, someID = someID
        let blob = blob, price = price, limits = limits, names = names
        let optionalNumbers = optionalNumbers, cities = cities
        return [
            PredicateCase(label: "age >= 18", exact: true, predicate: #Predicate { $0.age >= 18 }),
            PredicateCase(label: "age == 30", exact: true, predicate: #Predicate { $0.age == 30 }),
            PredicateCase(label: "age != 30", exact: true, predicate: #Predicate { $0.age != 30 }),
            PredicateCase(label: "18 <= age (flipped)", exact: true, predicate: #Predicate { 18 <= $0.age }),
            PredicateCase(label: "20 > age (flipped)", exact: true, predicate: #Predicate { 20 > $0.age }),
            PredicateCase(label: "age < 10 || age > 30", exact: true, predicate: #Predicate { $0.age < 10 || $0.age > 30 }),
            PredicateCase(label: "!(age < 20)", exact: true, predicate: #Predicate { !($0.age < 20) }),
            PredicateCase(label: "age >= 18 && city == Oslo", exact: true,
                          predicate: #Predicate { $0.age >= 18 && $0.address?.city == "Oslo" }),
            PredicateCase(label: "city == nil", exact: true, predicate: #Predicate { $0.address?.city == nil }),
            PredicateCase(label: "city != Oslo", exact: true, predicate: #Predicate { $0.address?.city != "Oslo" }),
            PredicateCase(label: "zip == 1234", exact: true, predicate: #Predicate { $0.address?.zip == 1234 }),
            PredicateCase(label: "zip == nil", exact: true, predicate: #Predicate { $0.address?.zip == nil }),
            PredicateCase(label: "owner name == Bob", exact: true, predicate: #Predicate { $0.address?.owner?.name == "Bob" }),
            PredicateCase(label: "address! city", exact: true, predicate: #Predicate { $0.address!.city == "Oslo" }),
            PredicateCase(label: "age < 5 || address! city", exact: true,
                          predicate: #Predicate { $0.age < 5 || $0.address!.city == "Oslo" }),
            PredicateCase(label: "n ?? 0 > 3", exact: true, predicate: #Predicate { ($0.n ?? 0) > 3 }),
            PredicateCase(label: "n ?? 10 > 3", exact: true, predicate: #Predicate { ($0.n ?? 10) > 3 }),
            PredicateCase(label: "n ?? 5 != 5", exact: true, predicate: #Predicate { ($0.n ?? 5) != 5 }),
            PredicateCase(label: "3 < n ?? 4", exact: true, predicate: #Predicate { 3 < ($0.n ?? 4) }),
            PredicateCase(label: "n == nil", exact: true, predicate: #Predicate { $0.n == nil }),
            PredicateCase(label: "nil != n", exact: true, predicate: #Predicate { nil != $0.n }),
            PredicateCase(label: "n! > 3", exact: true, predicate: #Predicate { $0.n! > 3 }),
            PredicateCase(label: "nickname == Bob", exact: true, predicate: #Predicate { $0.nickname == "Bob" }),
            PredicateCase(label: "nickname ?? name == Ann", exact: true, predicate: #Predicate { ($0.nickname ?? "Ann") == "Ann" }),
            PredicateCase(label: "name contains a", exact: true, predicate: #Predicate { $0.name.contains("a") }),
            PredicateCase(label: "name contains e", exact: true, predicate: #Predicate { $0.name.contains("e") }),
            PredicateCase(label: "name contains empty", exact: true, predicate: #Predicate { $0.name.contains("") }),
            PredicateCase(label: "name starts with A", exact: true, predicate: #Predicate { $0.name.starts(with: "A") }),
            PredicateCase(label: "city starts with O", exact: true, predicate: #Predicate { $0.address!.city.starts(with: "O") }),
            PredicateCase(label: "name < M", exact: true, predicate: #Predicate { $0.name < "M" }),
            PredicateCase(label: "name >= é", exact: true, predicate: #Predicate { $0.name >= "é" }),
            PredicateCase(label: "name == é (canonical)", exact: true, predicate: #Predicate { $0.name == "e\u{301}" }),
            PredicateCase(label: "names.contains(name)", exact: true, predicate: #Predicate { names.contains($0.name) }),
            PredicateCase(label: "optionals.contains(n)", exact: true, predicate: #Predicate { optionalNumbers.contains($0.n) }),
            PredicateCase(label: "cities.contains(city!)", exact: true, predicate: #Predicate { cities.contains($0.address!.city) }),
            PredicateCase(label: "(10...20).contains(age)", exact: true, predicate: #Predicate { (10...20).contains($0.age) }),
            PredicateCase(label: "(10..<20).contains(age)", exact: true, predicate: #Predicate { (10..<20).contains($0.age) }),
            PredicateCase(label: "score > 0.5", exact: true, predicate: #Predicate { $0.score > 0.5 }),
            PredicateCase(label: "score <= 0.5", exact: true, predicate: #Predicate { $0.score <= 0.5 }),
            PredicateCase(label: "score != 0.25", exact: true, predicate: #Predicate { $0.score != 0.25 }),
            PredicateCase(label: "height ?? 0 < 1.5", exact: true, predicate: #Predicate { ($0.height ?? 0) < 1.5 }),
            PredicateCase(label: "born < cutoff", exact: true, predicate: #Predicate { $0.born < cutoff }),
            PredicateCase(label: "born == cutoff", exact: true, predicate: #Predicate { $0.born == cutoff }),
            PredicateCase(label: "active", exact: true, predicate: #Predicate { $0.active }),
            PredicateCase(label: "!active", exact: true, predicate: #Predicate { !$0.active }),
            PredicateCase(label: "active == false", exact: true, predicate: #Predicate { $0.active == false }),
            PredicateCase(label: "mood == happy", exact: true, predicate: #Predicate { $0.mood == happy }),
            PredicateCase(label: "mood != happy", exact: true, predicate: #Predicate { $0.mood != happy }),
            PredicateCase(label: "optMood == sad", exact: true, predicate: #Predicate { $0.optMood == sadOpt }),
            PredicateCase(label: "optMood == nil", exact: true, predicate: #Predicate { $0.optMood == nil }),
            PredicateCase(label: "mood.rawValue == sad", exact: true, predicate: #Predicate { $0.mood.rawValue == "sad" }),
            PredicateCase(label: "mood.rawValue < m", exact: true, predicate: #Predicate { $0.mood.rawValue < "m" }),
            PredicateCase(label: "priority == low", exact: true, predicate: #Predicate { $0.priority == low }),
            PredicateCase(label: "id == someID", exact: true, predicate: #Predicate { $0.id == someID }),
            PredicateCase(label: "level > 3 (Int8)", exact: true, predicate: #Predicate { $0.level > 3 }),
            PredicateCase(label: "blob == [7]", exact: true, predicate: #Predicate { $0.blob == blob }),
            PredicateCase(label: "price >= 1", exact: true, predicate: #Predicate { $0.price >= price }),
            PredicateCase(label: "limits.minimum <= age", exact: true, predicate: #Predicate { limits.minimum <= $0.age }),
            PredicateCase(label: "true", exact: true, predicate: #Predicate { _ in true }),
            PredicateCase(label: "false || age == 3", exact: true, predicate: #Predicate { false || $0.age == 3 }),
            PredicateCase(label: "1 < 2 constant fold", exact: true, predicate: #Predicate { _ in 1 < 2 }),
            // Not translatable: evaluated per object.
            PredicateCase(label: "name.count > 3", exact: false, predicate: #Predicate { $0.name.count > 3 }),
            PredicateCase(label: "age >= 18 && name.count > 3", exact: false,
                          predicate: #Predicate { $0.age >= 18 && $0.name.count > 3 }),
            PredicateCase(label: "name.count > 3 && address! city", exact: false,
                          predicate: #Predicate { $0.name.count > 3 && $0.address!.city == "Oslo" }),
            PredicateCase(label: "age >= 18 || name.count > 3", exact: false,
                          predicate: #Predicate { $0.age >= 18 || $0.name.count > 3 }),
            PredicateCase(label: "!(name.isEmpty)", exact: false, predicate: #Predicate { !$0.name.isEmpty }),
            PredicateCase(label: "tags.contains(y)", exact: true, predicate: #Predicate { $0.tags.contains("y") }),
            PredicateCase(label: "!tags.contains(x)", exact: true, predicate: #Predicate { !$0.tags.contains("x") }),
            PredicateCase(label: "tags.contains where", exact: false, predicate: #Predicate { $0.tags.contains { $0 == "y" } }),
            PredicateCase(label: "age % 2 == 0", exact: false, predicate: #Predicate { $0.age % 2 == 0 }),
            PredicateCase(label: "age > serial (two paths)", exact: false, predicate: #Predicate { $0.age > $0.serial }),
            PredicateCase(label: "nickname?.count == 3", exact: false, predicate: #Predicate { $0.nickname?.count == 3 }),
            PredicateCase(label: "priority < low (enum order)", exact: false, predicate: #Predicate { $0.priority < low }),
            PredicateCase(label: "count == 3 (UInt)", exact: false, predicate: #Predicate { $0.count == 3 }),
            PredicateCase(label: "ternary", exact: false, predicate: #Predicate { ($0.active ? $0.age : 0) > 10 }),
            PredicateCase(label: "name.starts(with: nickname ?? x)", exact: false,
                          predicate: #Predicate { $0.age > 5 && $0.name.starts(with: $0.nickname ?? "x") }),
        ]
    }
}
