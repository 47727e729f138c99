import Foundation
import Testing
@testable import Chronicle

@Suite("StoreState: events")
struct StateFoldTests {
    typealias S = StateTestSupport
    typealias Person = RandomHistory.Person
    typealias Dog = RandomHistory.Dog
    let k1 = ObjectKey(1), k2 = ObjectKey(2), k3 = ObjectKey(3)

    @Test func defineTypeAppendsTables() throws {
        let state = try S.state()
        #expect(state.version == 1)
        #expect(state.schema.map(\.name) == ["Person", "Address", "Dog"])
        #expect(state.tableIndex(named: "Dog") == 2 && state.tableIndex(named: "Cat") == nil)
        #expect(state.count(table: 0) == 0 && state.nextKey(table: 0) == ObjectKey(1))
        state._checkInvariants()
    }

    @Test func createStoresAndIndexes() throws {
        let state = try S.state([
            .create(table: 0, key: k1, values: S.person(id: 10, name: "Ann")),
            .create(table: 0, key: k3, values: S.person(id: 30, name: "Ann", friends: [k1, k1])),
        ])
        #expect(state.count(table: 0) == 2)
        #expect(state.object(table: 0, key: k3)?[Person.id] == .int(30))
        #expect(state.contains(table: 0, key: k1) && !state.contains(table: 0, key: k2))
        #expect(state.key(table: 0, primaryKey: .int(30)) == k3)
        #expect(state.keys(table: 0, property: Person.name, equalTo: .string("Ann")) == [k1, k3])
        #expect(state.keys(table: 0, property: Person.id, equalTo: .int(10)) == [k1])
        #expect(state.keys(table: 0, property: Person.tags, equalTo: .null) == nil)
        #expect(state.backlinks(table: 0, key: k1) == Array(repeating: Backlink(table: 0, key: k3, property: Person.friends), count: 2))
        #expect(state.nextKey(table: 0) == ObjectKey(4))
        #expect(state.objects(table: 0).map(\.key) == [k1, k3])
        #expect(state.objects(table: 0, from: k2).map(\.key) == [k3])
        state._checkInvariants()
    }

    @Test func keysAreNeverHandedOutTwice() throws {
        var state = try S.state([.create(table: 0, key: ObjectKey(5), values: S.person(id: 5))])
        state = try S.fold(state, [.delete(table: 0, key: ObjectKey(5))]).state
        #expect(state.nextKey(table: 0) == ObjectKey(6))
        state = try S.fold(state, [.create(table: 0, key: k2, values: S.person(id: 2))]).state
        #expect(state.nextKey(table: 0) == ObjectKey(6))
    }

    @Test func setChangesOneValueAndItsIndex() throws {
        let state = try S.state([.create(table: 0, key: k1, values: S.person(id: 1, name: "Ann"))])
        let (next, changes) = try S.fold(state, [.set(table: 0, key: k1, property: Person.name, value: .string("Bo"))])
        #expect(next.object(table: 0, key: k1)?[Person.name] == .string("Bo"))
        #expect(next.keys(table: 0, property: Person.name, equalTo: .string("Ann")) == [])
        #expect(next.keys(table: 0, property: Person.name, equalTo: .string("Bo")) == [k1])
        #expect(changes.modification(table: 0, key: k1)?.properties ==
                [PropertyDelta(property: Person.name, oldValue: .string("Ann"), newValue: .string("Bo"))])
        #expect(state.object(table: 0, key: k1)?[Person.name] == .string("Ann"))  // the old version is intact
        next._checkInvariants()
    }

    @Test func settingTheSameValueRecordsNothing() throws {
        let state = try S.state([.create(table: 0, key: k1, values: S.person(id: 1, name: "Ann"))])
        let (_, changes) = try S.fold(state, [
            .set(table: 0, key: k1, property: Person.name, value: .string("Ann")),
            .set(table: 0, key: k1, property: Person.id, value: .int(1)),  // a primary key may be "set" to itself
        ])
        #expect(changes.isEmpty)
    }

    @Test func addPropertyGivesDefaults() throws {
        var state = try S.state([.create(table: 0, key: k1, values: S.person(id: 1))])
        let added: [PropertySchema] = [
            PropertySchema(name: "nick", type: .string, isIndexed: true),
            PropertySchema(name: "born", type: .date),
            PropertySchema(name: "weight", type: .double, isOptional: true),
            PropertySchema(name: "pets", type: .object, objectType: "Dog", collection: .set),
            PropertySchema(name: "home", type: .url),
        ]
        let (next, changes) = try S.fold(state, added.map { .addProperty(table: 0, $0) })
        state = next
        #expect(changes.schemaChanged && changes.modifications.isEmpty)
        #expect(state.schema[0].properties.count == 15)
        #expect(Array(state.object(table: 0, key: k1)!.values.suffix(5)) ==
                [.string(""), .date(Date(timeIntervalSinceReferenceDate: 0)), .null, .set([]), .string("")])
        #expect(state.keys(table: 0, property: 10, equalTo: .string("")) == [k1])
        state._checkInvariants()
        state = try S.fold(state, [.create(table: 0, key: k2, values: S.person(id: 2) + added.map(\.defaultValue))]).state
        state._checkInvariants()
    }

    @Test(arguments: PropertyType.allCases)
    func defaultValuesFitTheirProperties(type: PropertyType) {
        let property = PropertySchema(name: "p", type: type, objectType: type == .object ? "T" : nil)
        let value = property.defaultValue
        #expect(value == .null ? type == .object : type.accepts(value))
        #expect(PropertySchema(name: "p", type: type, isOptional: true).defaultValue == .null)
        #expect(PropertySchema(name: "p", type: type, collection: .list).defaultValue == .list([]))
        #expect(PropertySchema(name: "p", type: type, collection: .map).defaultValue == .map([]))
    }

    @Test func listEditsFollowRealmSemantics() throws {
        var state = try S.state((1...4).map { .create(table: 0, key: ObjectKey($0), values: S.person(id: $0)) })
        func friends() -> [ObjectKey] { state.object(table: 0, key: k1)![Person.friends].linkedKeys }
        let p = Person.friends
        state = try S.fold(state, [
            .listInsert(table: 0, key: k1, property: p, index: 0, value: .link(k2)),
            .listInsert(table: 0, key: k1, property: p, index: 1, value: .link(k3)),
            .listInsert(table: 0, key: k1, property: p, index: 2, value: .link(ObjectKey(4))),
        ]).state
        #expect(friends() == [k2, k3, ObjectKey(4)])
        state = try S.fold(state, [.listMove(table: 0, key: k1, property: p, from: 0, to: 2)]).state
        #expect(friends() == [k3, ObjectKey(4), k2])
        state = try S.fold(state, [.listReplace(table: 0, key: k1, property: p, index: 1, value: .link(k3))]).state
        #expect(friends() == [k3, k3, k2])
        #expect(state.backlinks(table: 0, key: ObjectKey(4)) == [])
        #expect(state.backlinks(table: 0, key: k3).count == 2)
        state = try S.fold(state, [.listRemove(table: 0, key: k1, property: p, index: 0)]).state
        #expect(friends() == [k3, k2])
        state = try S.fold(state, [.clear(table: 0, key: k1, property: p)]).state
        #expect(friends() == [] && state.backlinks(table: 0, key: k2) == [])
        state._checkInvariants()
    }

    @Test func setEditsIgnoreDuplicatesAndAbsentees() throws {
        var state = try S.state([.create(table: 0, key: k1, values: S.person(id: 1))])
        let tags = Person.tags
        var changes: ChangeSet
        (state, changes) = try S.fold(state, [
            .setInsert(table: 0, key: k1, property: tags, value: .string("b")),
            .setInsert(table: 0, key: k1, property: tags, value: .string("a")),
            .setInsert(table: 0, key: k1, property: tags, value: .string("b")),
        ])
        #expect(state.object(table: 0, key: k1)?[tags] == .set([.string("b"), .string("a")]))
        #expect(changes.modification(table: 0, key: k1)?.delta(for: tags)?.oldValue == .set([]))
        (state, changes) = try S.fold(state, [.setRemove(table: 0, key: k1, property: tags, value: .string("zzz"))])
        #expect(changes.isEmpty)
        (state, changes) = try S.fold(state, [.setRemove(table: 0, key: k1, property: tags, value: .string("b"))])
        #expect(state.object(table: 0, key: k1)?[tags] == .set([.string("a")]))
    }

    @Test func mapEditsKeepEntriesSorted() throws {
        var state = try S.state([.create(table: 0, key: k1, values: S.person(id: 1))])
        let scores = Person.scores
        state = try S.fold(state, [
            .mapSet(table: 0, key: k1, property: scores, mapKey: "m", value: .int(1)),
            .mapSet(table: 0, key: k1, property: scores, mapKey: "c", value: .int(2)),
            .mapSet(table: 0, key: k1, property: scores, mapKey: "x", value: .int(3)),
            .mapSet(table: 0, key: k1, property: scores, mapKey: "m", value: .int(4)),
            .mapRemove(table: 0, key: k1, property: scores, mapKey: "x"),
            .mapRemove(table: 0, key: k1, property: scores, mapKey: "nope"),
        ]).state
        #expect(state.object(table: 0, key: k1)?[scores] ==
                .map([MapEntry(key: "c", value: .int(2)), MapEntry(key: "m", value: .int(4))]))
        state = try S.fold(state, [.clear(table: 0, key: k1, property: scores)]).state
        #expect(state.object(table: 0, key: k1)?[scores] == .map([]))
    }

    @Test func mapValuesAreLinksWithBacklinks() throws {
        var state = try S.state([
            .create(table: 2, key: k1, values: S.dog(id: "a")),
            .create(table: 2, key: k2, values: S.dog(id: "b")),
            .mapSet(table: 2, key: k1, property: Dog.friendsByName, mapKey: "best", value: .link(k2)),
            .mapSet(table: 2, key: k1, property: Dog.friendsByName, mapKey: "self", value: .link(k1)),
        ])
        #expect(state.backlinks(table: 2, key: k2) == [Backlink(table: 2, key: k1, property: Dog.friendsByName)])
        state = try S.fold(state, [.mapSet(table: 2, key: k1, property: Dog.friendsByName, mapKey: "best", value: .null)]).state
        #expect(state.backlinks(table: 2, key: k2) == [])
        state._checkInvariants()
    }
}
