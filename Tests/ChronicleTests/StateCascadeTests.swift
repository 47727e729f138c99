import Foundation
import Testing
@testable import Chronicle

@Suite("StoreState: deletes, cascades and links")
struct StateCascadeTests {
    typealias S = StateTestSupport
    typealias Person = RandomHistory.Person
    typealias Address = RandomHistory.Address
    typealias Dog = RandomHistory.Dog
    let k1 = ObjectKey(1), k2 = ObjectKey(2), k3 = ObjectKey(3)

    /// Person 1 owns address 1 (to-one) and addresses 2, 3 (list).
    func owner() throws -> StoreState {
        try S.state([
            .create(table: 1, key: k1, values: S.address("Oslo")),
            .create(table: 1, key: k2, values: S.address("Lima")),
            .create(table: 1, key: k3, values: S.address("Rome")),
            .create(table: 0, key: k1, values: S.person(id: 1, address: .link(k1), previous: [k2, k3])),
        ])
    }

    @Test func deletingTheOwnerDeletesItsEmbeddedObjects() throws {
        let (state, changes) = try S.fold(try owner(), [.delete(table: 0, key: k1)])
        #expect(state.count(table: 0) == 0 && state.count(table: 1) == 0)
        #expect(Set(changes.deletions) == [TableKey(table: 0, key: k1), TableKey(table: 1, key: k1),
                                          TableKey(table: 1, key: k2), TableKey(table: 1, key: k3)])
        #expect(changes.deletedRecords[TableKey(table: 1, key: k2)]?[Address.city] == .string("Lima"))
        #expect(changes.modifications.isEmpty)
        state._checkInvariants()
    }

    @Test func replacingAnEmbeddedObjectDeletesTheOldOne() throws {
        let (state, changes) = try S.fold(try owner(), [
            .create(table: 1, key: ObjectKey(4), values: S.address("Kyiv")),
            .set(table: 0, key: k1, property: Person.address, value: .link(ObjectKey(4))),
            .set(table: 0, key: k1, property: Person.previousAddresses, value: .list([.link(k3)])),
        ])
        #expect(state.objects(table: 1).map(\.key) == [k3, ObjectKey(4)])
        #expect(changes.deletions == [TableKey(table: 1, key: k1), TableKey(table: 1, key: k2)])
        #expect(changes.insertions == [TableKey(table: 1, key: ObjectKey(4))])
        state._checkInvariants()
    }

    @Test func embeddedObjectsLeavingListsAreDeleted() throws {
        var state = try owner()
        state = try S.fold(state, [.listRemove(table: 0, key: k1, property: Person.previousAddresses, index: 0)]).state
        #expect(!state.contains(table: 1, key: k2))
        state = try S.fold(state, [
            .create(table: 1, key: ObjectKey(5), values: S.address("Baku")),
            .listReplace(table: 0, key: k1, property: Person.previousAddresses, index: 0, value: .link(ObjectKey(5))),
        ]).state
        #expect(!state.contains(table: 1, key: k3))
        state = try S.fold(state, [.listMove(table: 0, key: k1, property: Person.previousAddresses, from: 0, to: 0)]).state
        #expect(state.contains(table: 1, key: ObjectKey(5)))
        state = try S.fold(state, [.clear(table: 0, key: k1, property: Person.previousAddresses)]).state
        #expect(state.objects(table: 1).map(\.key) == [k1])
        state = try S.fold(state, [.set(table: 0, key: k1, property: Person.address, value: .null)]).state
        #expect(state.count(table: 1) == 0)
        state._checkInvariants()
    }

    @Test func deletingAnEmbeddedObjectDirectlyNilsItsOwner() throws {
        let (state, changes) = try S.fold(try owner(), [.delete(table: 1, key: k1), .delete(table: 1, key: k3)])
        let person = try #require(state.object(table: 0, key: k1))
        #expect(person[Person.address] == .null && person[Person.previousAddresses] == .list([.link(k2)]))
        #expect(changes.modification(table: 0, key: k1)?.properties.map(\.property) == [Person.address, Person.previousAddresses])
    }

    @Test func deletingALinkTargetNilsAndRemovesItEverywhere() throws {
        let state = try S.state([
            .create(table: 0, key: k1, values: S.person(id: 1)),
            .create(table: 2, key: k1, values: S.dog(id: "rex", buddies: [k1])),
            .create(table: 2, key: k2, values: S.dog(id: "fido")),
            .mapSet(table: 2, key: k2, property: Dog.friendsByName, mapKey: "pal", value: .link(k1)),
            .create(table: 0, key: k2, values: S.person(id: 2, friends: [k1, k1], dogs: [k1, k2, k1])),
            .set(table: 0, key: k2, property: Person.bestDog, value: .link(k1)),
            .listInsert(table: 0, key: k1, property: Person.friends, index: 0, value: .link(k1)),  // a self-link
        ])
        let (afterDog, dogChanges) = try S.fold(state, [.delete(table: 2, key: k1)])
        let person = try #require(afterDog.object(table: 0, key: k2))
        #expect(person[Person.dogs] == .list([.link(k2)]) && person[Person.bestDog] == .null)
        #expect(afterDog.object(table: 2, key: k2)?[Dog.friendsByName] == .map([MapEntry(key: "pal", value: .null)]))
        #expect(dogChanges.modification(table: 0, key: k2)?.properties.map(\.property) == [Person.dogs, Person.bestDog])
        #expect(dogChanges.modification(table: 2, key: k2)?.properties.map(\.property) == [Dog.friendsByName])
        #expect(dogChanges.deletions == [TableKey(table: 2, key: k1)])
        afterDog._checkInvariants()

        let (afterPerson, personChanges) = try S.fold(afterDog, [.delete(table: 0, key: k1)])
        #expect(afterPerson.object(table: 0, key: k2)?[Person.friends] == .list([]))
        #expect(personChanges.modification(table: 0, key: k2)?.delta(for: Person.friends)?.oldValue ==
                .list([.link(k1), .link(k1)]))
        #expect(afterPerson.key(table: 0, primaryKey: .int(1)) == nil)
        afterPerson._checkInvariants()
    }

    @Test func setsOfLinksLoseDeletedMembers() throws {
        let state = try S.state([
            .create(table: 0, key: k1, values: S.person(id: 1)),
            .create(table: 0, key: k2, values: S.person(id: 2)),
            .create(table: 2, key: k1, values: S.dog(id: "rex", buddies: [k1, k2])),
        ])
        let (next, changes) = try S.fold(state, [.delete(table: 0, key: k1)])
        #expect(next.object(table: 2, key: k1)?[Dog.buddies] == .set([.link(k2)]))
        #expect(changes.modification(table: 2, key: k1) != nil)
        next._checkInvariants()
    }
}
