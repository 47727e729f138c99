import Foundation
@testable import Chronicle

/// Helpers for tests of ``StoreState`` over the ``RandomHistory`` schema.
enum StateTestSupport {
    typealias Person = RandomHistory.Person
    typealias Address = RandomHistory.Address
    typealias Dog = RandomHistory.Dog

    /// The values of a plain person with primary key `id`.
    static func person(id: Int64, name: String = "Ann", address: PersistedValue = .null,
                       friends: [ObjectKey] = [], dogs: [ObjectKey] = [], previous: [ObjectKey] = []) -> [PersistedValue] {
        [.int(id), .string(name), .null, address, .list(friends.map { .link($0) }), .list(dogs.map { .link($0) }),
         .list(previous.map { .link($0) }), .set([]), .map([]), .null]
    }

    /// The values of a dog with primary key `id`.
    static func dog(id: String, buddies: [ObjectKey] = []) -> [PersistedValue] {
        [.string(id), .string("Rex"), .map([]), .set(buddies.map { .link($0) })]
    }

    /// The values of an address.
    static func address(_ city: String) -> [PersistedValue] { [.string(city), .string("NO")] }

    /// A state holding the schema (version 1), plus `events` folded as version 2 if any.
    static func state(_ events: [Event] = []) throws(FoldError) -> StoreState {
        var state = try StoreState().applying(Commit(version: 1, timestamp: Date(), events: RandomHistory.schemaEvents)).state
        if !events.isEmpty { state = try state.applying(Commit(version: 2, timestamp: Date(), events: events)).state }
        return state
    }

    /// Folds `events` as the next commit.
    static func fold(_ state: StoreState, _ events: [Event]) throws(FoldError) -> (state: StoreState, changes: ChangeSet) {
        try state.applying(Commit(version: state.version + 1, timestamp: Date(), events: events))
    }

    /// A random event that is often invalid: wrong tables, keys, properties, indexes and values.
    static func randomEvent(in state: StoreState, using rng: inout SplitMix64) -> Event {
        let table = Int.random(in: 0...3, using: &rng)
        let key = ObjectKey(.random(in: -1...(state.nextKey(table: min(table, 2)).rawValue + 1), using: &rng))
        let property = Int.random(in: 0...10, using: &rng)
        let index = Int.random(in: -1...3, using: &rng)
        let values: [PersistedValue] = [.null, .int(1), .string("Ann"), .link(ObjectKey(.random(in: 0...5, using: &rng))),
                                        .list([]), .set([]), .map([]), .bool(true)]
        let value = values.randomElement(using: &rng)!
        switch Int.random(in: 0..<12, using: &rng) {
        case 0: return .create(table: table, key: key, values: Array(repeating: value, count: property))
        case 1: return .set(table: table, key: key, property: property, value: value)
        case 2: return .delete(table: table, key: key)
        case 3: return .listInsert(table: table, key: key, property: property, index: index, value: value)
        case 4: return .listRemove(table: table, key: key, property: property, index: index)
        case 5: return .listMove(table: table, key: key, property: property, from: index, to: index + 1)
        case 6: return .listReplace(table: table, key: key, property: property, index: index, value: value)
        case 7: return .setInsert(table: table, key: key, property: property, value: value)
        case 8: return .setRemove(table: table, key: key, property: property, value: value)
        case 9: return .mapSet(table: table, key: key, property: property, mapKey: "a", value: value)
        case 10: return .mapRemove(table: table, key: key, property: property, mapKey: "a")
        default: return .clear(table: table, key: key, property: property)
        }
    }
}
