import Foundation
@testable import Chronicle

/// Generates random but valid commit histories over a small schema — a type
/// with a primary key, an embedded type (to-one and in a list), lists, sets
/// and maps of links — for tests of the fold and of anything built on it.
///
/// The generator folds what it generates, so every event it emits is valid
/// in the state it was generated for; an event the fold rejects is a bug in
/// the fold or here, and traps.
struct RandomHistory {
    /// Table 0: `Person`.
    enum Person {
        static let table = 0
        static let id = 0, name = 1, age = 2, address = 3, friends = 4, dogs = 5, previousAddresses = 6,
                   tags = 7, scores = 8, bestDog = 9
        static let schema = TypeSchema(name: "Person", properties: [
            PropertySchema(name: "_id", type: .int, isPrimaryKey: true),
            PropertySchema(name: "name", type: .string, isIndexed: true),
            PropertySchema(name: "age", type: .int, isOptional: true, isIndexed: true),
            PropertySchema(name: "address", type: .object, objectType: "Address"),
            PropertySchema(name: "friends", type: .object, objectType: "Person", collection: .list),
            PropertySchema(name: "dogs", type: .object, objectType: "Dog", collection: .list),
            PropertySchema(name: "previousAddresses", type: .object, objectType: "Address", collection: .list),
            PropertySchema(name: "tags", type: .string, collection: .set),
            PropertySchema(name: "scores", type: .int, collection: .map),
            PropertySchema(name: "bestDog", type: .object, objectType: "Dog"),
        ])
    }

    /// Table 1: `Address`, embedded.
    enum Address {
        static let table = 1
        static let city = 0, country = 1
        static let schema = TypeSchema(name: "Address", isEmbedded: true, properties: [
            PropertySchema(name: "city", type: .string),
            PropertySchema(name: "country", type: .string),
        ])
    }

    /// Table 2: `Dog`.
    enum Dog {
        static let table = 2
        static let id = 0, name = 1, friendsByName = 2, buddies = 3
        static let schema = TypeSchema(name: "Dog", properties: [
            PropertySchema(name: "_id", type: .string, isPrimaryKey: true),
            PropertySchema(name: "name", type: .string),
            PropertySchema(name: "friendsByName", type: .object, objectType: "Dog", collection: .map),
            PropertySchema(name: "buddies", type: .object, objectType: "Person", collection: .set),
        ])
    }

    /// The events defining the three types.
    static let schemaEvents: [Event] = [.defineType(Person.schema), .defineType(Address.schema), .defineType(Dog.schema)]

    private static let names = ["Ann", "Bo", "Cy", "Di", "Ed"]
    private static let cities = ["Oslo", "Lima", "Rome"]

    private var rng: SplitMix64
    /// The state after every commit generated so far.
    private(set) var state = StoreState()
    /// The commits generated so far.
    private(set) var commits: [Commit] = []
    private var serial: Int64 = 0

    /// A generator seeded with `seed`; its first commit defines the schema.
    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
        append(Self.schemaEvents)
    }

    /// Generates `count` more commits of 1 to `maxEvents` random events each.
    static func commits(seed: UInt64, count: Int, maxEvents: Int = 8) -> [Commit] {
        var history = RandomHistory(seed: seed)
        for _ in 0..<count { history.nextCommit(maxEvents: maxEvents) }
        return history.commits
    }

    /// Generates and folds one commit.
    @discardableResult
    mutating func nextCommit(maxEvents: Int = 8) -> Commit {
        var working = state
        var builder = ChangeSetBuilder()
        var events: [Event] = []
        for _ in 0..<Int.random(in: 1...maxEvents, using: &rng) {
            for event in randomEvents(in: working) {
                do {
                    try working.apply(event, changes: &builder)
                } catch {
                    fatalError("RandomHistory generated an event the fold rejects: \(error)")
                }
                events.append(event)
            }
        }
        return append(events)
    }

    @discardableResult
    private mutating func append(_ events: [Event]) -> Commit {
        let commit = Commit(version: state.version + 1, timestamp: Date(timeIntervalSinceReferenceDate: Double(commits.count)),
                            events: events)
        do {
            state = try state.applying(commit).state
        } catch {
            fatalError("RandomHistory commit does not fold: \(error)")
        }
        commits.append(commit)
        return commit
    }

    // MARK: Random events

    private mutating func pick(_ table: Int, in state: StoreState) -> ObjectKey? {
        let keys = state.objects(table: table).map(\.key)
        return keys.randomElement(using: &rng)
    }

    private mutating func nextSerial() -> Int64 {
        serial += 1
        return serial
    }

    private mutating func randomName() -> PersistedValue { .string(Self.names.randomElement(using: &rng)!) }

    /// Creates an address and returns it with the events that made it.
    private mutating func newAddress(in state: StoreState) -> (ObjectKey, Event) {
        let key = state.nextKey(table: Address.table)
        let city = PersistedValue.string(Self.cities.randomElement(using: &rng)!)
        return (key, .create(table: Address.table, key: key, values: [city, .string("NO")]))
    }

    private func elements(_ state: StoreState, _ table: Int, _ key: ObjectKey, _ property: Int) -> [PersistedValue] {
        state.object(table: table, key: key)![property].elements
    }

    /// One to three events valid in sequence in `state`.
    private mutating func randomEvents(in state: StoreState) -> [Event] {
        let person = pick(Person.table, in: state)
        let dog = pick(Dog.table, in: state)
        let choice = Int.random(in: 0..<22, using: &rng)
        if choice < 3 || person == nil {
            let key = state.nextKey(table: Person.table)
            let friends = (0..<Int.random(in: 0...2, using: &rng)).compactMap { _ in pick(Person.table, in: state) }
            let age: PersistedValue = Bool.random(using: &rng) ? .null : .int(.random(in: 0...3, using: &rng))
            return [.create(table: Person.table, key: key, values: [
                .int(nextSerial()), randomName(), age, .null, .list(friends.map { .link($0) }),
                .list(dog.map { [.link($0)] } ?? []), .list([]), .set([]), .map([]), dog.map { .link($0) } ?? .null,
            ])]
        }
        guard let person else { return [] }
        let t = Person.table
        switch choice {
        case 3, 4:
            let key = state.nextKey(table: Dog.table)
            let buddies: [PersistedValue] = [.link(person)]
            return [.create(table: Dog.table, key: key, values: [.string("d\(nextSerial())"), randomName(), .map([]), .set(buddies)])]
        case 5:
            return [.set(table: t, key: person, property: Person.name, value: randomName())]
        case 6:
            let age: PersistedValue = Bool.random(using: &rng) ? .null : .int(.random(in: 0...3, using: &rng))
            return [.set(table: t, key: person, property: Person.age, value: age)]
        case 7:
            let (address, create) = newAddress(in: state)
            return [create, .set(table: t, key: person, property: Person.address, value: .link(address))]
        case 8:
            let (address, create) = newAddress(in: state)
            let count = elements(state, t, person, Person.previousAddresses).count
            return [create, .listInsert(table: t, key: person, property: Person.previousAddresses,
                                        index: .random(in: 0...count, using: &rng), value: .link(address))]
        case 9:
            let friend = pick(t, in: state)!
            let count = elements(state, t, person, Person.friends).count
            return [.listInsert(table: t, key: person, property: Person.friends, index: .random(in: 0...count, using: &rng),
                                value: .link(friend))]
        case 10, 11:
            let property = Bool.random(using: &rng) ? Person.friends : Person.previousAddresses
            let count = elements(state, t, person, property).count
            guard count > 0 else { return [] }
            let index = Int.random(in: 0..<count, using: &rng)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                return [.listRemove(table: t, key: person, property: property, index: index)]
            case 1:
                return [.listMove(table: t, key: person, property: property, from: index,
                                  to: .random(in: 0..<count, using: &rng))]
            default:
                if property == Person.friends {
                    return [.listReplace(table: t, key: person, property: property, index: index, value: .link(pick(t, in: state)!))]
                }
                let (address, create) = newAddress(in: state)
                return [create, .listReplace(table: t, key: person, property: property, index: index, value: .link(address))]
            }
        case 12:
            let tag = randomName()
            return Bool.random(using: &rng)
                ? [.setInsert(table: t, key: person, property: Person.tags, value: tag)]
                : [.setRemove(table: t, key: person, property: Person.tags, value: tag)]
        case 13:
            let mapKey = ["a", "b", "c"].randomElement(using: &rng)!
            return Bool.random(using: &rng)
                ? [.mapSet(table: t, key: person, property: Person.scores, mapKey: mapKey, value: .int(.random(in: 0...2, using: &rng)))]
                : [.mapRemove(table: t, key: person, property: Person.scores, mapKey: mapKey)]
        case 14:
            guard let dog, let other = pick(Dog.table, in: state) else { return [] }
            let mapKey = ["x", "y"].randomElement(using: &rng)!
            let value: PersistedValue = Bool.random(using: &rng) ? .link(other) : .null
            return [.mapSet(table: Dog.table, key: dog, property: Dog.friendsByName, mapKey: mapKey, value: value)]
        case 15:
            guard let dog else { return [] }
            return Bool.random(using: &rng)
                ? [.setInsert(table: Dog.table, key: dog, property: Dog.buddies, value: .link(person))]
                : [.setRemove(table: Dog.table, key: dog, property: Dog.buddies, value: .link(person))]
        case 16:
            let property = [Person.friends, Person.previousAddresses, Person.tags, Person.scores].randomElement(using: &rng)!
            return [.clear(table: t, key: person, property: property)]
        case 17:
            let friends = (0..<Int.random(in: 0...3, using: &rng)).compactMap { _ in pick(t, in: state) }
            return [.set(table: t, key: person, property: Person.friends, value: .list(friends.map { .link($0) }))]
        case 18:
            return [.delete(table: t, key: person)]
        case 19:
            guard let dog else { return [] }
            return [.delete(table: Dog.table, key: dog)]
        case 20:
            guard let address = pick(Address.table, in: state) else { return [] }
            return [.delete(table: Address.table, key: address)]
        default:
            return [.set(table: t, key: person, property: Person.bestDog, value: dog.map { .link($0) } ?? .null)]
        }
    }
}
