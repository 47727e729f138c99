import Foundation
import Testing
@testable import Chronicle

/// A model whose every property is of a primitive type: an unmanaged
/// instance keeps them all in slots, and `add` files that storage as the
/// object's record.
final class SlottedReading: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var longLabel = "a label of more than fifteen bytes"
    @Persisted var at = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var value = 0.0
    @Persisted var ratio: Float = 0
    @Persisted var flag = false
    @Persisted var small: Int8 = 0
    @Persisted var payload = Data()
    @Persisted var uuid = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    @Persisted var oid = ObjectId("000000000000000000000000")!
    @Persisted var amount = Decimal(0)
    @Persisted var link = URL(string: "https://example.com")!
    @Persisted var unit = BusinessUnitEnum.sales
}
extension SlottedReading: @unchecked Sendable {}

/// Where an unmanaged object keeps its values (`UnmanagedValues`): a
/// primitive value in a slot of a stored record's storage, any other in an
/// entry of its own.
@Suite("Unmanaged values")
struct UnmanagedValuesTests {
    private static let when = Date(timeIntervalSinceReferenceDate: 812_345_678.5)
    private static let uuid = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    private static let oid = ObjectId("5f1a2b3c4d5e6f7a8b9c0d1e")!

    private func filled(_ id: Int) -> SlottedReading {
        let reading = SlottedReading()
        reading.id = id
        reading.label = "r\(id)"
        reading.longLabel = "a reading whose label is long, number \(id)"
        reading.at = Self.when
        reading.value = 21.5
        reading.ratio = 0.25
        reading.flag = true
        reading.small = -7
        reading.payload = Data([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17])
        reading.uuid = Self.uuid
        reading.oid = Self.oid
        reading.amount = Decimal(string: "12.345")!
        reading.link = URL(string: "https://example.com/readings/\(id)")!
        reading.unit = .engineering
        return reading
    }

    private func expectFilled(_ reading: SlottedReading, _ id: Int) {
        #expect(reading.id == id && reading.label == "r\(id)")
        #expect(reading.longLabel == "a reading whose label is long, number \(id)")
        #expect(reading.at == Self.when && reading.value == 21.5 && reading.ratio == 0.25)
        #expect(reading.flag && reading.small == -7)
        #expect(reading.payload == Data([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]))
        #expect(reading.uuid == Self.uuid && reading.oid == Self.oid)
        #expect(reading.amount == Decimal(string: "12.345")! && reading.link == URL(string: "https://example.com/readings/\(id)")!)
        #expect(reading.unit == .engineering)
    }

    private func record(of reading: SlottedReading) -> RecordStorage {
        reading.unmanagedStorage.withLockedHeader { _, values in values.record }
    }

    @Test func primitiveValuesLiveInSlotsAndReadBack() {
        let fresh = SlottedReading()
        fresh.unmanagedStorage._checkInvariants()
        #expect(fresh.unmanagedStorage.withLockedHeader { _, values in values.areAllInRecord })
        #expect(fresh.longLabel == "a label of more than fifteen bytes" && fresh.unit == .sales && fresh.amount == 0)

        let reading = filled(3)
        reading.unmanagedStorage._checkInvariants()
        expectFilled(reading, 3)
        // Overwritten many times: each write frees the value it replaces.
        for round in 0..<100 { reading.longLabel = "overwritten, round \(round), past the inline size" }
        #expect(reading.longLabel == "overwritten, round 99, past the inline size")
        reading.unmanagedStorage._checkInvariants()
    }

    @Test func addFilesTheInstancesOwnStorageAsTheRecord() throws {
        let store = try scratchStore()
        let reading = filled(1)
        let storage = record(of: reading)
        try store.write { store.add(reading) }
        let state = store.committedState()
        let table = try #require(state.tableIndex(named: "SlottedReading"))
        let key = try #require(state.key(table: table, primaryKey: .int(1)))
        let stored = try #require(state.object(table: table, key: key))
        #expect(stored.storage === storage, "add copied the values instead of filing the instance's storage")
        stored._checkInvariants()
        expectFilled(reading, 1)
        expectFilled(try #require(store.object(ofType: SlottedReading.self, forPrimaryKey: 1)), 1)

        // Managed now: a write goes to the store, never into the shared storage.
        try store.write { reading.label = "changed" }
        #expect(reading.label == "changed")
        #expect(storage.value(at: 1) == .string("r1"), "a managed write changed the record an older state holds")
        #expect(store.committedState().object(table: table, key: key)?.storage !== storage)
    }

    @Test func aJournalWrittenFromSlotsReopensWithEveryValue() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let store = try Store(configuration: .init(fileURL: url))
            try store.write { for id in 1...50 { store.add(filled(id)) } }
        }
        let reopened = try Store(configuration: .init(fileURL: url))
        #expect(reopened.objects(SlottedReading.self).count == 50)
        for id in [1, 17, 50] { expectFilled(try #require(reopened.object(ofType: SlottedReading.self, forPrimaryKey: id)), id) }
    }

    @Test func otherValuesLiveInEntriesAndAreConvertedOnAdd() throws {
        let object = AllTypes()
        object.unmanagedStorage._checkInvariants()
        #expect(!object.unmanagedStorage.withLockedHeader { _, values in values.areAllInRecord })
        object.id = 9
        object.string = "plain"
        object.optString = "optional"
        object.optInt = 4
        object.optUnit = .engineering
        object.numbers.append(contentsOf: [3, 1, 2])
        object.tags.insert("x")
        object.scores["a"] = 1
        object.unmanagedStorage._checkInvariants()

        let store = try scratchStore()
        try store.write { store.add(object) }
        let stored = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: 9))
        #expect(stored.string == "plain" && stored.optString == "optional" && stored.optInt == 4)
        #expect(stored.optUnit == .engineering && stored.optBool == nil)
        #expect(Array(stored.numbers) == [3, 1, 2] && stored.tags.contains("x") && stored.scores["a"] == 1)
    }

    /// `RecordStorage.containsNull`, which tells whether an unmanaged
    /// object's values are all in its record, against a plain search: every
    /// count up to 29, a null at each place or none, among values of every
    /// tag (so that a tag of 15, or a zero nibble past the count, would show).
    @Test func aRecordKnowsWhetherItHoldsANull() {
        let kinds: [PersistedValue] = [.int(1), .string("s"), .bool(true), .double(2), .objectId(ObjectId("5f1a2b3c4d5e6f7a8b9c0d1e")!),
                                       .uuid(Self.uuid), .data(Data([1])), .date(Self.when), .float(1), .link(ObjectKey(3))]
        for count in 0...29 {
            for nullAt in [-1] + Array(0..<count) {
                let values = (0..<count).map { $0 == nullAt ? PersistedValue.null : kinds[$0 % kinds.count] }
                let record = ObjectRecord(values)
                #expect(record.storage.containsNull == values.contains(.null), "\(count) values, null at \(nullAt)")
            }
        }
    }

    @Test func createTakesAnIntegerOfAnotherWidthAndRejectsAWrongKind() throws {
        let store = try scratchStore()
        try store.write { store.create(AllTypes.self, value: ["id": 1, "int": Int64(7), "int8": 5, "optInt": 3]) }
        let made = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: 1))
        #expect(made.int == 7 && made.int8 == 5 && made.optInt == 3)

        // A string for an integer: kept as given, and the store says no.
        #expect {
            try store.write { store.create(AllTypes.self, value: ["id": 2, "int": "seven"]) }
        } throws: { error in
            guard case StoreError.rejected = error else { return false }
            return true
        }
        #expect(store.object(ofType: AllTypes.self, forPrimaryKey: 2) == nil)
    }
}
