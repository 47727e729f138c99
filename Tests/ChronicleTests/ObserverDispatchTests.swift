import Foundation
import Testing
@testable import Chronicle

/// A write builds its change set only when some observer may care about it.
@Suite("Observer dispatch", .timeLimit(.minutes(1)))
struct ObserverDispatchTests {
    /// Dispatches a commit with `footprint` to `store`'s observers and
    /// returns whether its change set was built.
    static func builds(_ store: Store, _ footprint: ChangeFootprint) -> Bool {
        let state = store.committedState()
        let built = Locked(false)
        store.observers.dispatch(building: {
            built.withLock { $0 = true }
            return .empty(version: state.version + 1)
        }, footprint: footprint, old: state, new: state)
        return built.withLock { $0 }
    }

    static func setting(_ property: String, of type: String, in store: Store) throws -> ChangeFootprint {
        let state = store.committedState()
        let table = try #require(state.tableIndex(named: type))
        var footprint = ChangeFootprint()
        footprint.modified(table: table, property: try #require(state.schema[table].propertyIndex(named: property)))
        return footprint
    }

    static let structural: ChangeFootprint = {
        var footprint = ChangeFootprint()
        footprint.isStructural = true
        return footprint
    }()

    @Test func theChangeSetIsBuiltOnlyWithObservers() async throws {
        let store = try scratchStore()
        #expect(!Self.builds(store, Self.structural), "no observer: nothing to build")

        let counter = Counter()
        try store.write { store.add(counter) }
        let token = counter.observe { _ in }
        defer { token.invalidate() }
        for _ in 0..<400 where store.observers.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(store.observers.count == 1)
        #expect(Self.builds(store, Self.structural), "an observer: the change set is built")
    }

    @Test func settingOnlyUnobservedPropertiesBuildsNothing() throws {
        let store = try scratchStore()
        let person = Person()
        try store.write { store.add(person) }
        let lastNames = person.changes(keyPaths: [\.lastName])
        let firstName = try Self.setting("firstName", of: "Person", in: store)
        let lastName = try Self.setting("lastName", of: "Person", in: store)

        #expect(!Self.builds(store, firstName), "nobody observes firstName")
        #expect(Self.builds(store, lastName))
        #expect(Self.builds(store, Self.structural), "a deletion may be the observed object's")
        store.observers._checkInvariants()

        // A query observer wants any change to its table.
        do {
            let people = store.objects(Person.self).changes()
            #expect(Self.builds(store, firstName))
            withExtendedLifetime(people) {}
        }
        #expect(!Self.builds(store, firstName), "cancelled: its interest is forgotten")
        store.observers._checkInvariants()
        withExtendedLifetime(lastNames) {}
    }

    @Test func aNestedPathWatchesEveryChangeOfTheTablesItCrosses() throws {
        let store = try scratchStore()
        let person = Person(), friend = Person()
        person.friends.append(friend)
        try store.write { store.add(person) }
        let nested = try person.changes(keyPaths: ["friends.lastName"])
        // The friend's `firstName` is not on the path, but the registry
        // does not resolve paths through links: it builds, and the
        // observer's own check finds nothing to report.
        #expect(Self.builds(store, try Self.setting("firstName", of: "Person", in: store)))
        try store.write { friend.firstName = "not on the path" }
        #expect(nested.subscription.observer.buffer.pendingCount == 0)
        try store.write { friend.lastName = "on the path" }
        #expect(nested.subscription.observer.buffer.pendingCount == 1)
    }

    @Test func anUnobservedUpdateStillLeavesLaterChangesDelivered() async throws {
        let store = try scratchStore()
        let person = Person()
        try store.write { store.add(person) }
        let lastNames = person.changes(keyPaths: [\.lastName])
        try store.write { person.firstName = "skipped" }
        #expect(lastNames.subscription.observer.buffer.pendingCount == 0)
        try store.write { person.lastName = "seen" }
        try store.write { store.delete(person) }
        var received: [String] = []
        for await change in lastNames {
            switch change {
            case .change(_, let properties): received += properties.map { "\($0.name)=\($0.newValue.map { "\($0)" } ?? "nil")" }
            case .deleted: received.append("deleted")
            case .error(let error): Issue.record("\(error)")
            }
        }
        #expect(received == ["lastName=seen", "deleted"])
    }
}

/// The per-table summary the registry checks footprints against.
@Suite("Interest summary", .timeLimit(.minutes(1)))
struct InterestSummaryTests {
    @Test func countsPropertiesPerTableAndForgetsRemovedInterests() {
        var summary = InterestSummary()
        let score = ObserverInterest(objects: [TableKey(table: 1, key: ObjectKey(7))], properties: ChangeFootprint.bit(3))
        let other = ObserverInterest(objects: [TableKey(table: 1, key: ObjectKey(8))], properties: ChangeFootprint.bit(3))
        var setsScore = ChangeFootprint(), setsName = ChangeFootprint(), setsScoreElsewhere = ChangeFootprint()
        setsScore.modified(table: 1, property: 3)
        setsName.modified(table: 1, property: 2)
        setsScoreElsewhere.modified(table: 0, property: 3)

        summary.add(score)
        summary.add(other)
        #expect(summary.concerns(setsScore))
        #expect(!summary.concerns(setsName))
        #expect(!summary.concerns(setsScoreElsewhere))
        summary.remove(score)
        #expect(summary.concerns(setsScore), "one observer of the property is left")
        summary.remove(other)
        #expect(!summary.concerns(setsScore))
        summary._checkInvariants()
    }

    @Test func tableInterestsAndUnfilteredObjectsWantEveryChange() {
        var summary = InterestSummary()
        var setsName = ChangeFootprint()
        setsName.modified(table: 2, property: 1)
        summary.add(ObserverInterest(tables: [2]))
        #expect(summary.concerns(setsName))
        summary.remove(ObserverInterest(tables: [2]))
        #expect(!summary.concerns(setsName))
        summary.add(ObserverInterest(objects: [TableKey(table: 2, key: ObjectKey(1))]))
        #expect(summary.concerns(setsName), "no property filter: any change to the object")
        summary._checkInvariants()
    }

    @Test func aWriteAcrossTablesIsCheckedInEachOfThem() {
        var summary = InterestSummary()
        summary.add(ObserverInterest(objects: [TableKey(table: 2, key: ObjectKey(1))], properties: ChangeFootprint.bit(5)))
        var footprint = ChangeFootprint()
        footprint.modified(table: 0, property: 5)
        footprint.modified(table: 3, property: 5)
        #expect(!summary.concerns(footprint))
        footprint.modified(table: 2, property: 4)
        #expect(!summary.concerns(footprint))
        footprint.modified(table: 2, property: 5)
        #expect(summary.concerns(footprint), "the third table set is the watched one")
    }

    @Test func highPropertiesShareTheLastBit() {
        var summary = InterestSummary()
        summary.add(ObserverInterest(objects: [TableKey(table: 0, key: ObjectKey(1))], properties: ChangeFootprint.bit(70)))
        var sets64 = ChangeFootprint(), sets62 = ChangeFootprint()
        sets64.modified(table: 0, property: 64)
        sets62.modified(table: 0, property: 62)
        #expect(summary.concerns(sets64), "over-approximated, never missed")
        #expect(!summary.concerns(sets62))
    }

    @Test func theBuilderFootprintSeesSetsCreationsAndSchemaChanges() throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        var state = store.committedState()
        let table = try #require(state.tableIndex(named: "Counter"))
        let value = try #require(state.schema[table].propertyIndex(named: "value"))
        var changes = ChangeSetBuilder()
        let key = try #require(state.key(table: table, primaryKey: .int(0)))
        try state.apply(.set(table: table, key: key, property: value, value: .int(5)), changes: &changes)
        var expected = ChangeFootprint()
        expected.modified(table: table, property: value)
        #expect(changes.footprint == expected)
        try state.apply(.delete(table: table, key: key), changes: &changes)
        #expect(changes.footprint.isStructural)
    }
}
