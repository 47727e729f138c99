import ChronicleTesting
import Foundation
@testable import Chronicle

// A stand-in for a model class: stored properties of every kind the query
// layer translates, with a hand-written resolver and QueryRow.

enum Mood: String, Codable, Sendable, CaseIterable {
    case happy, sad, meh
}

/// Raw values order opposite to the synthesized (declaration) order.
enum Priority: Int, Codable, Sendable, Comparable, CaseIterable {
    case high = 2, medium = 1, low = 0

    static func < (lhs: Priority, rhs: Priority) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

struct Owner: Sendable, Codable {
    var name: String
}

struct QAddress: Sendable, Codable {
    var city: String
    var zip: Int?
    var owner: Owner?
}

struct Limits: Sendable, Codable {
    var minimum: Int
}

struct QRoot: Sendable {
    var serial: Int
    var name: String
    var nickname: String?
    var age: Int
    var level: Int8
    var n: Int?
    var score: Double
    var height: Float?
    var born: Date
    var active: Bool
    var mood: Mood
    var optMood: Mood?
    var priority: Priority
    var id: UUID
    var blob: Data
    var price: Decimal
    var address: QAddress?
    var tags: [String]
    var count: UInt

    /// Not persisted: the resolver does not know it.
    var doubleAge: Int { age * 2 }
}

enum QueryFixtures {
    static var paths: [AnyKeyPath: PropertyPath] { [
        \QRoot.serial: ["serial"], \QRoot.name: ["name"], \QRoot.nickname: ["nickname"],
        \QRoot.age: ["age"], \QRoot.level: ["level"], \QRoot.n: ["n"], \QRoot.score: ["score"],
        \QRoot.height: ["height"], \QRoot.born: ["born"], \QRoot.active: ["active"],
        \QRoot.mood: ["mood"], \QRoot.optMood: ["optMood"], \QRoot.priority: ["priority"],
        \QRoot.id: ["id"], \QRoot.blob: ["blob"], \QRoot.price: ["price"],
        \QRoot.address: ["address"], \QRoot.tags: ["tags"], \QRoot.count: ["count"],
        \QAddress.city: ["city"], \QAddress.zip: ["zip"], \QAddress.owner: ["owner"],
        \Owner.name: ["name"],
        // Whole composed key paths, as sort descriptors pass them.
        \QRoot.address?.city: ["address", "city"],
        \QRoot.address?.zip: ["address", "zip"],
    ] }

    /// The resolver the model layer would supply for ``QRoot``.
    static func resolve(_ keyPath: AnyKeyPath) -> PropertyPath? { paths[keyPath] }

    static let names = ["Ann", "anna", "Bob", "bob", "Åsa", "e\u{301}", "é", "", "Oslo", "Zed", "ab", "ba"]
    static let cities = ["Oslo", "oslo", "Bergen", "Ålesund", ""]
    static let base = Date(timeIntervalSinceReferenceDate: 700_000_000)
    static let uuids = (0..<3).map { UUID(uuid: (UInt8($0), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)) }

    /// A row with values drawn from small domains, so that equal values and
    /// nils are common. `allowNaN` adds NaN scores.
    static func randomRoot(serial: Int, using rng: inout some RandomNumberGenerator, allowNaN: Bool = true) -> QRoot {
        func maybe<T>(_ value: T, _ rng: inout some RandomNumberGenerator) -> T? {
            Int.random(in: 0..<4, using: &rng) == 0 ? nil : value
        }
        let scores: [Double] = allowNaN ? [0, 0.5, 0.25, -1, 1, .nan, .infinity] : [0, 0.5, 0.25, -1, 1, .infinity]
        let owner = maybe(Owner(name: names.randomElement(using: &rng)!), &rng)
        let address = maybe(QAddress(city: cities.randomElement(using: &rng)!,
                                    zip: maybe(Int.random(in: 1233...1235, using: &rng), &rng),
                                    owner: owner), &rng)
        return QRoot(
            serial: serial,
            name: names.randomElement(using: &rng)!,
            nickname: maybe(names.randomElement(using: &rng)!, &rng),
            age: Int.random(in: 0...40, using: &rng),
            level: Int8.random(in: -3...6, using: &rng),
            n: maybe(Int.random(in: 0...8, using: &rng), &rng),
            score: scores.randomElement(using: &rng)!,
            height: maybe(Float([1.25, 1.5, 1.75].randomElement(using: &rng)!), &rng),
            born: base.addingTimeInterval(Double(Int.random(in: -3...3, using: &rng)) * 86_400),
            active: Bool.random(using: &rng),
            mood: Mood.allCases.randomElement(using: &rng)!,
            optMood: maybe(Mood.allCases.randomElement(using: &rng)!, &rng),
            priority: Priority.allCases.randomElement(using: &rng)!,
            id: uuids.randomElement(using: &rng)!,
            blob: Data([UInt8](repeating: 7, count: Int.random(in: 0...2, using: &rng))),
            price: Decimal(Int.random(in: 0...4, using: &rng)) / 2,
            address: address,
            tags: Array(["x", "y", "z"].prefix(Int.random(in: 0...3, using: &rng))),
            count: UInt.random(in: 0...5, using: &rng))
    }
}

/// The persisted values of a ``QRoot``, the way the store would hold them.
struct QRootRow: QueryRow {
    var root: QRoot

    func value(at path: PropertyPath) -> PersistedValue? {
        let r = root
        switch path.components {
        case ["serial"]: return .int(Int64(r.serial))
        case ["name"]: return .string(r.name)
        case ["nickname"]: return r.nickname.map(PersistedValue.string) ?? .null
        case ["age"]: return .int(Int64(r.age))
        case ["level"]: return .int(Int64(r.level))
        case ["n"]: return r.n.map { .int(Int64($0)) } ?? .null
        case ["score"]: return .double(r.score)
        case ["height"]: return r.height.map(PersistedValue.float) ?? .null
        case ["born"]: return .date(r.born)
        case ["active"]: return .bool(r.active)
        case ["mood"]: return .string(r.mood.rawValue)
        case ["optMood"]: return r.optMood.map { .string($0.rawValue) } ?? .null
        case ["priority"]: return .int(Int64(r.priority.rawValue))
        case ["id"]: return .uuid(r.id)
        case ["blob"]: return .data(r.blob)
        case ["price"]: return .decimal(r.price)
        case ["tags"]: return .list(r.tags.map(PersistedValue.string))
        case ["count"]: return .int(Int64(r.count))
        case ["address"]: return r.address == nil ? .null : .link(ObjectKey(Int64(r.serial)))
        case ["address", "city"]: return r.address.map { .string($0.city) }
        case ["address", "zip"]: return r.address.map { $0.zip.map { .int(Int64($0)) } ?? .null }
        case ["address", "owner"]:
            return r.address.map { $0.owner == nil ? .null : .link(ObjectKey(Int64(r.serial))) }
        case ["address", "owner", "name"]:
            guard let address = r.address else { return nil }
            return address.owner.map { .string($0.name) }
        default: fatalError("no persisted property at \(path)")
        }
    }
}

/// SplitMix64: a small seeded generator for reproducible random rows.
