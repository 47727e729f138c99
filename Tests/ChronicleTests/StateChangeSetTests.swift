import Foundation
import Testing
@testable import Chronicle

@Suite("StoreState: change sets")
struct StateChangeSetTests {
    typealias S = StateTestSupport
    typealias Person = RandomHistory.Person
    let k1 = ObjectKey(1), k2 = ObjectKey(2), k3 = ObjectKey(3)

    func base() throws -> StoreState {
        try S.state([
            .create(table: 0, key: k1, values: S.person(id: 1, name: "Ann")),
            .create(table: 0, key: k2, values: S.person(id: 2, name: "Bo")),
        ])
    }

    @Test func aPropertySetTwiceKeepsFirstOldAndLastNew() throws {
        let (_, changes) = try S.fold(try base(), [
            .set(table: 0, key: k1, property: Person.name, value: .string("Cy")),
            .set(table: 0, key: k1, property: Person.name, value: .string("Di")),
        ])
        #expect(changes.modifications == [ObjectModification(table: 0, key: k1, properties: [
            PropertyDelta(property: Person.name, oldValue: .string("Ann"), newValue: .string("Di")),
        ])])
        #expect(changes.version == 3)
    }

    /// A change set scans its lists for up to `ChangeSet.indexedAbove`
    /// objects and hashes them above: both answer alike, on either side.
    @Test(arguments: [1, ChangeSet.indexedAbove, ChangeSet.indexedAbove + 1, 40])
    func lookUpsAnswerAtEverySize(count: Int) throws {
        var events: [Event] = []
        for index in 0..<count {
            let key = ObjectKey(Int64(10 + index))
            events.append(.create(table: 0, key: key, values: S.person(id: Int64(10 + index))))
        }
        let (state, _) = try S.fold(try base(), events)
        var changes: [Event] = []
        for index in 0..<count {
            changes.append(.set(table: 0, key: ObjectKey(Int64(10 + index)), property: Person.age, value: .int(Int64(index + 1))))
            changes.append(.create(table: 0, key: ObjectKey(Int64(100 + index)), values: S.person(id: Int64(100 + index))))
        }
        let (_, changeSet) = try S.fold(state, changes)
        #expect(changeSet.modifications.count == count && changeSet.insertions.count == count)
        for index in 0..<count {
            let modified = ObjectKey(Int64(10 + index)), inserted = ObjectKey(Int64(100 + index))
            #expect(changeSet.modification(table: 0, key: modified)?.properties.map(\.newValue) == [.int(Int64(index + 1))])
            #expect(changeSet.isInserted(table: 0, key: inserted))
            #expect(!changeSet.isInserted(table: 0, key: modified))
            #expect(changeSet.modification(table: 0, key: inserted) == nil)
            #expect(changeSet.modification(table: 1, key: modified) == nil)
            #expect(!changeSet.isInserted(table: 1, key: inserted))
        }
        #expect(changeSet.modification(table: 0, key: k1) == nil && !changeSet.isInserted(table: 0, key: k1))
    }

    @Test func aPropertySetBackDisappears() throws {
        let (_, changes) = try S.fold(try base(), [
            .set(table: 0, key: k1, property: Person.name, value: .string("Cy")),
            .set(table: 0, key: k1, property: Person.age, value: .int(3)),
            .set(table: 0, key: k1, property: Person.name, value: .string("Ann")),
            .setInsert(table: 0, key: k2, property: Person.tags, value: .string("x")),
            .setRemove(table: 0, key: k2, property: Person.tags, value: .string("x")),
        ])
        #expect(changes.modifications.map(\.key) == [k1])
        #expect(changes.modification(table: 0, key: k1)?.properties.map(\.property) == [Person.age])
        #expect(changes.modification(table: 0, key: k2) == nil)
    }

    @Test func createdThenModifiedIsAnInsertion() throws {
        let (state, changes) = try S.fold(try base(), [
            .create(table: 0, key: k3, values: S.person(id: 3)),
            .set(table: 0, key: k3, property: Person.name, value: .string("Ed")),
            .listInsert(table: 0, key: k3, property: Person.friends, index: 0, value: .link(k1)),
        ])
        #expect(changes.insertions == [TableKey(table: 0, key: k3)])
        #expect(changes.isInserted(table: 0, key: k3) && !changes.isInserted(table: 0, key: k1))
        #expect(changes.modifications.isEmpty && changes.deletions.isEmpty)
        #expect(state.object(table: 0, key: k3)?[Person.name] == .string("Ed"))
    }

    @Test func createdThenDeletedIsNothing() throws {
        let (state, changes) = try S.fold(try base(), [
            .create(table: 0, key: k3, values: S.person(id: 3)),
            .listInsert(table: 0, key: k1, property: Person.friends, index: 0, value: .link(k3)),
            .delete(table: 0, key: k3),
        ])
        #expect(changes.isEmpty)
        #expect(state.nextKey(table: 0) == ObjectKey(4))
    }

    @Test func modifiedThenDeletedIsADeletionWithTheLastRecord() throws {
        let (_, changes) = try S.fold(try base(), [
            .set(table: 0, key: k1, property: Person.name, value: .string("Cy")),
            .delete(table: 0, key: k1),
        ])
        #expect(changes.deletions == [TableKey(table: 0, key: k1)] && changes.modifications.isEmpty)
        #expect(changes.isDeleted(table: 0, key: k1))
        #expect(changes.deletedRecords[TableKey(table: 0, key: k1)]?[Person.name] == .string("Cy"))
    }

    @Test func deletedAndRecreatedWithTheSameKeyIsAModification() throws {
        let (_, changes) = try S.fold(try base(), [
            .set(table: 0, key: k1, property: Person.age, value: .int(9)),
            .delete(table: 0, key: k1),
            .create(table: 0, key: k1, values: S.person(id: 1, name: "Zed")),
        ])
        #expect(changes.insertions.isEmpty && changes.deletions.isEmpty)
        #expect(changes.modification(table: 0, key: k1)?.properties ==
                [PropertyDelta(property: Person.name, oldValue: .string("Ann"), newValue: .string("Zed"))])
    }

    @Test func collectionDeltasCarryWholeValuesAndOrderIsFirstTouch() throws {
        let (_, changes) = try S.fold(try base(), [
            .listInsert(table: 0, key: k2, property: Person.friends, index: 0, value: .link(k1)),
            .setInsert(table: 0, key: k1, property: Person.tags, value: .string("t")),
            .listInsert(table: 0, key: k2, property: Person.friends, index: 1, value: .link(k2)),
        ])
        #expect(changes.modifications.map(\.key) == [k2, k1])
        #expect(changes.modification(table: 0, key: k2)?.properties ==
                [PropertyDelta(property: Person.friends, oldValue: .list([]), newValue: .list([.link(k1), .link(k2)]))])
    }

    @Test func schemaEventsAreFlagged() throws {
        let (_, changes) = try S.fold(try base(), [.addProperty(table: 1, PropertySchema(name: "zip", type: .string))])
        #expect(changes.schemaChanged && !changes.isEmpty)
    }
    // Creations with keys never used before take a path that records no
    // entry (``ChangeSetBuilder/created(_:record:fresh:)``); these pin that
    // later events on such objects coalesce as before.

    @Test func aFreshCreationDeletedThenCreatedAgainIsAnInsertion() throws {
        let k9 = ObjectKey(9)
        let (_, changes) = try S.fold(try base(), [
            .create(table: 0, key: k3, values: S.person(id: 3)),
            .create(table: 0, key: k9, values: S.person(id: 9)),
            .delete(table: 0, key: k9),
            .create(table: 0, key: k9, values: S.person(id: 9, name: "Again")),
            .set(table: 0, key: k1, property: Person.name, value: .string("Cy")),
        ])
        #expect(changes.insertions == [TableKey(table: 0, key: k3), TableKey(table: 0, key: k9)])
        #expect(changes.isInserted(table: 0, key: k9) && changes.deletions.isEmpty)
        #expect(changes.modifications.map(\.key) == [k1])
    }

    @Test func aFreshCreationDeletedLeavesTheOtherInsertionsInOrder() throws {
        let k4 = ObjectKey(4), k5 = ObjectKey(5)
        let (_, changes) = try S.fold(try base(), [
            .create(table: 0, key: k5, values: S.person(id: 5)),
            .create(table: 0, key: k4, values: S.person(id: 4)),
            .create(table: 0, key: k3, values: S.person(id: 3)),
            .set(table: 0, key: k4, property: Person.name, value: .string("Ed")),
            .delete(table: 0, key: k5),
        ])
        // 4 and 3 are below the next key once 5 exists: created, not fresh.
        #expect(changes.insertions == [TableKey(table: 0, key: k4), TableKey(table: 0, key: k3)])
        #expect(changes.modifications.isEmpty && changes.deletions.isEmpty)
    }

    /// Consecutive fresh creations share one element of the builder's
    /// order (a run): a change between them starts a new run, and a
    /// deletion inside a run removes only its object, the insertions
    /// keeping the order first touched.
    @Test func runsOfFreshCreationsKeepTheirOrderAroundOtherChanges() throws {
        let keys = (3...8).map { ObjectKey(Int64($0)) }
        var events: [Event] = keys.prefix(3).map { .create(table: 0, key: $0, values: S.person(id: $0.rawValue)) }
        events.append(.set(table: 0, key: k1, property: Person.name, value: .string("Cy")))
        events += keys.dropFirst(3).map { .create(table: 0, key: $0, values: S.person(id: $0.rawValue)) }
        let (_, changes) = try S.fold(try base(), events)
        #expect(changes.insertions == keys.map { TableKey(table: 0, key: $0) })
        #expect(changes.modifications.map(\.key) == [k1])
        let (_, afterDeletion) = try S.fold(try base(), events + [.delete(table: 0, key: keys[1])])
        #expect(afterDeletion.insertions == keys.filter { $0 != keys[1] }.map { TableKey(table: 0, key: $0) })
        #expect(afterDeletion.deletions.isEmpty && afterDeletion.modifications.map(\.key) == [k1])
    }

    @Test func freshCreationsModifiedStayInsertionsWithoutEntries() throws {
        var builder = ChangeSetBuilder()
        var state = try base()
        let keys = (3...6).map { ObjectKey(Int64($0)) }
        for key in keys {
            try state.apply(.create(table: 0, key: key, values: S.person(id: key.rawValue)), changes: &builder)
            try state.apply(.set(table: 0, key: key, property: Person.name, value: .string("N")), changes: &builder)
        }
        try state.apply(.set(table: 0, key: k2, property: Person.name, value: .string("Cy")), changes: &builder)
        let changes = builder.build(version: 9)
        #expect(changes.insertions == keys.map { TableKey(table: 0, key: $0) })
        #expect(changes.modifications.map(\.key) == [k2])
        #expect(!builder.isEmpty)
    }
}
