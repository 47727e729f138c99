import Foundation
import Testing
@testable import Chronicle

@Suite("StoreState: fold errors")
struct StateErrorTests {
    typealias S = StateTestSupport
    typealias Person = RandomHistory.Person
    typealias Dog = RandomHistory.Dog
    typealias Reason = FoldError.Reason
    static let k1 = ObjectKey(1), k2 = ObjectKey(2), k9 = ObjectKey(9)

    /// Person 1 owning address 1; person 2; dog 1.
    static func base() throws -> StoreState {
        try S.state([
            .create(table: 1, key: k1, values: S.address("Oslo")),
            .create(table: 0, key: k1, values: S.person(id: 1, address: .link(k1))),
            .create(table: 0, key: k2, values: S.person(id: 2, friends: [k1])),
            .create(table: 2, key: k1, values: S.dog(id: "rex")),
        ])
    }

    static let cases: [(Event, Reason)] = [
        (.defineType(RandomHistory.Dog.schema), .duplicateType("Dog")),
        (.defineType(TypeSchema(name: "X", properties: [PropertySchema(name: "a", type: .int), PropertySchema(name: "a", type: .int)])),
         .invalidSchema("X has two properties named \"a\"")),
        (.defineType(TypeSchema(name: "X", properties: [PropertySchema(name: "o", type: .object)])),
         .invalidSchema("X.o links to no type")),
        (.addProperty(table: 0, PropertySchema(name: "pk2", type: .int, isPrimaryKey: true)),
         .invalidSchema("Person has two primary keys")),
        (.addProperty(table: 9, PropertySchema(name: "x", type: .int)), .noSuchTable(9)),
        (.create(table: 7, key: k9, values: []), .noSuchTable(7)),
        (.create(table: 0, key: k1, values: S.person(id: 5)), .keyInUse(table: 0, key: k1)),
        (.create(table: 0, key: ObjectKey(-3), values: S.person(id: 5)), .invalidKey(ObjectKey(-3))),
        (.create(table: 0, key: k9, values: [.int(5)]), .valueCount(expected: 10, actual: 1)),
        (.create(table: 0, key: k9, values: S.person(id: 2)), .duplicatePrimaryKey(.int(2), existing: k2)),
        (.create(table: 0, key: k9, values: S.person(id: 9, friends: [k9])), .danglingLink(table: 0, key: k9)),
        (.create(table: 0, key: k9, values: S.person(id: 9, address: .link(k1))), .embeddedObjectAlreadyOwned(table: 1, key: k1)),
        (.set(table: 0, key: k9, property: 1, value: .null), .noSuchObject(table: 0, key: k9)),
        (.set(table: 0, key: k1, property: 42, value: .null), .noSuchProperty(table: 0, property: 42)),
        (.set(table: 0, key: k1, property: Person.id, value: .int(7)), .primaryKeyChange(property: "_id")),
        (.set(table: 0, key: k1, property: Person.name, value: .int(7)), .typeMismatch(property: "name", value: .int(7))),
        (.set(table: 0, key: k1, property: Person.name, value: .null), .typeMismatch(property: "name", value: .null)),
        (.set(table: 0, key: k1, property: Person.friends, value: .set([])), .typeMismatch(property: "friends", value: .set([]))),
        (.set(table: 0, key: k1, property: Person.tags, value: .set([.string("a"), .string("a")])),
         .typeMismatch(property: "tags", value: .set([.string("a"), .string("a")]))),
        (.set(table: 0, key: k1, property: Person.scores, value: .map([MapEntry(key: "b", value: .int(1)), MapEntry(key: "a", value: .int(1))])),
         .typeMismatch(property: "scores", value: .map([MapEntry(key: "b", value: .int(1)), MapEntry(key: "a", value: .int(1))]))),
        (.set(table: 0, key: k2, property: Person.address, value: .link(k1)), .embeddedObjectAlreadyOwned(table: 1, key: k1)),
        (.delete(table: 2, key: k9), .noSuchObject(table: 2, key: k9)),
        (.listInsert(table: 0, key: k1, property: Person.friends, index: 2, value: .link(k2)), .indexOutOfRange(index: 2, count: 1)),
        (.listInsert(table: 0, key: k1, property: Person.tags, index: 0, value: .string("a")), .wrongCollection(property: "tags", expected: .list)),
        (.listInsert(table: 0, key: k1, property: Person.friends, index: 0, value: .null), .typeMismatch(property: "friends", value: .null)),
        (.listRemove(table: 0, key: k2, property: Person.friends, index: 1), .indexOutOfRange(index: 1, count: 1)),
        (.listRemove(table: 0, key: k2, property: Person.friends, index: -1), .indexOutOfRange(index: -1, count: 1)),
        (.listMove(table: 0, key: k2, property: Person.friends, from: 0, to: 1), .indexOutOfRange(index: 1, count: 1)),
        (.listReplace(table: 0, key: k2, property: Person.friends, index: 0, value: .link(k9)), .danglingLink(table: 0, key: k9)),
        (.listInsert(table: 0, key: k2, property: Person.previousAddresses, index: 0, value: .link(k1)),
         .embeddedObjectAlreadyOwned(table: 1, key: k1)),
        (.setInsert(table: 0, key: k1, property: Person.friends, value: .link(k1)), .wrongCollection(property: "friends", expected: .set)),
        (.setInsert(table: 2, key: k1, property: Dog.buddies, value: .link(k9)), .danglingLink(table: 0, key: k9)),
        (.mapSet(table: 0, key: k1, property: Person.tags, mapKey: "a", value: .string("x")), .wrongCollection(property: "tags", expected: .map)),
        (.mapSet(table: 0, key: k1, property: Person.scores, mapKey: "a", value: .string("x")), .typeMismatch(property: "scores", value: .string("x"))),
        (.mapRemove(table: 0, key: k1, property: Person.name, mapKey: "a"), .wrongCollection(property: "name", expected: .map)),
        (.clear(table: 0, key: k1, property: Person.name), .notACollection(property: "name")),
    ]

    @Test(arguments: 0..<cases.count)
    func eventErrorsNameTheEventAndLeaveTheStateAlone(index: Int) throws {
        let (event, reason) = Self.cases[index]
        var state = try Self.base()
        let before = state
        var builder = ChangeSetBuilder()
        let error = #expect(throws: FoldError.self) { try state.apply(event, changes: &builder) }
        #expect(error == FoldError(event: event, reason: reason))
        #expect(state.isContentEqual(before) && builder.isEmpty)
        #expect(error?.description.contains(reason.description) == true)
    }

    @Test func undefinedLinkTypesAreReported() throws {
        var state = StoreState()
        var builder = ChangeSetBuilder()
        try state.apply(.defineType(TypeSchema(name: "A", properties: [PropertySchema(name: "b", type: .object, objectType: "B")])),
                        changes: &builder)
        try state.apply(.create(table: 0, key: Self.k1, values: [.null]), changes: &builder)
        let event = Event.set(table: 0, key: Self.k1, property: 0, value: .link(Self.k1))
        #expect(throws: FoldError(event: event, reason: .undefinedType("B"))) { try state.apply(event, changes: &builder) }
    }

    @Test func addingAPrimaryKeyToManyObjectsIsRefused() throws {
        var state = StoreState()
        var builder = ChangeSetBuilder()
        try state.apply(.defineType(TypeSchema(name: "A", properties: [])), changes: &builder)
        try state.apply(.create(table: 0, key: Self.k1, values: []), changes: &builder)
        try state.apply(.create(table: 0, key: Self.k2, values: []), changes: &builder)
        let event = Event.addProperty(table: 0, PropertySchema(name: "id", type: .int, isPrimaryKey: true))
        #expect(throws: FoldError(event: event, reason: .duplicatePrimaryKey(.int(0), existing: Self.k1))) {
            try state.apply(event, changes: &builder)
        }
    }

    @Test func aFailingCommitNamesItsEventAndVersionMismatchesAreRefused() throws {
        let state = try Self.base()
        let bad = Event.delete(table: 2, key: Self.k9)
        let commit = Commit(version: state.version + 1, timestamp: Date(), events: [.delete(table: 2, key: Self.k1), bad])
        #expect(throws: FoldError(event: bad, eventIndex: 1, reason: .noSuchObject(table: 2, key: Self.k9))) {
            try state.applying(commit)
        }
        #expect(state.contains(table: 2, key: Self.k1))
        let skipped = Commit(version: state.version + 2, timestamp: Date(), events: [])
        #expect(throws: FoldError(event: nil, reason: .versionMismatch(expected: state.version + 1, actual: state.version + 2))) {
            try state.applying(skipped)
        }
    }
}
