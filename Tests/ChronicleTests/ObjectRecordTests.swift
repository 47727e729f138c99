import Foundation
import Testing
@testable import Chronicle
import ChronicleTesting

/// `ObjectRecord` keeps its values in one allocation, each in a slot of its
/// kind's width (16 bytes for a string, `Data`, a UUID, an object
/// identifier or a collection, 8 otherwise), their kinds packed in a header word and, past
/// twelve values, in words after it (see `RecordStorage`). These tests read
/// back what was put in, for every kind, in both places, and after changes
/// of kind and width, in place and on a shared record's copy.
@Suite("Object records")
struct ObjectRecordTests {
    /// One value of every kind `PersistedValue` has, narrow and wide.
    static let everyKind: [PersistedValue] = [
        .null, .bool(true), .bool(false), .int(-42), .int(.max), .float(1.5), .double(-0.25),
        .string("short"), .string("a string longer than fifteen bytes, so it lives on the heap"),
        .data(Data([1, 2, 3])), .data(Data(repeating: 7, count: 100)),
        .date(Date(timeIntervalSinceReferenceDate: 12_345.678)),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        .objectId(ObjectId("65f1c2a3b4c5d6e7f8091a2b")!),
        .decimal(Decimal(string: "3.14159265358979323846")!),
        .link(ObjectKey(99)),
        .list([.int(1), .string("two"), .null]), .set([.string("x"), .string("y")]),
        .map([MapEntry(key: "k", value: .double(2))]),
    ]

    @Test func readsBackEveryKindInEveryPosition() {
        for shift in 0..<Self.everyKind.count {
            // Rotated, so each kind sits before and after every other one.
            let values = ContiguousArray(Self.everyKind[shift...] + Self.everyKind[..<shift])
            let record = ObjectRecord(values: values)
            record._checkInvariants()
            #expect(record.count == values.count)
            #expect(record.values == values)
            for index in values.indices { #expect(record[index] == values[index]) }
        }
    }

    @Test(arguments: [0, 1, 11, 12, 13, 27, 28, 29, 60])
    func holdsAnyNumberOfValues(count: Int) {
        var random = SeededRandomNumberGenerator(seed: UInt64(count) + 7)
        let values = ContiguousArray((0..<count).map { _ in Self.everyKind.randomElement(using: &random)! })
        let record = ObjectRecord(values: values)
        record._checkInvariants()
        #expect(record.values == values)
    }

    /// A write's created objects are encoded from their records
    /// (`encodeValues(into:)`): integers and short ASCII strings from their
    /// slots, everything else through a `PersistedValue`. The bytes must be
    /// the ones encoding each value on its own gives, which the journal's
    /// decoding reads.
    @Test(arguments: [0, 1, 4, 12, 13, 29])
    func encodingFromTheSlotsIsEncodingEachValue(count: Int) {
        let strings: [PersistedValue] = [
            .string(""), .string("a"), .string("seven77"), .string("eight888"), .string("fifteen letters"),
            .string("sixteen letters!"), .string("héllo"), .string("日本"), .int(0), .int(-1), .int(.min), .int(63), .int(64),
        ]
        var random = SeededRandomNumberGenerator(seed: UInt64(count) + 101)
        for _ in 0..<20 {
            let values = ContiguousArray((0..<count).map { _ in (Self.everyKind + strings).randomElement(using: &random)! })
            var fromSlots = BinaryWriter()
            ObjectRecord(values: values).storage.encodeValues(into: &fromSlots)
            var oneByOne = BinaryWriter()
            for value in values { EventCodec.encode(value, into: &oneByOne) }
            #expect(fromSlots.bytes == oneByOne.bytes, "\(values)")
        }
    }

    @Test func anyValueReplacesAnyOtherAndCopiesAreIndependent() {
        var random = SeededRandomNumberGenerator(seed: 31)
        var expected = ContiguousArray((0..<30).map { _ in Self.everyKind.randomElement(using: &random)! })
        var record = ObjectRecord(values: expected)
        for round in 0..<500 {
            let property = Int.random(in: 0..<expected.count, using: &random)
            let value = Self.everyKind.randomElement(using: &random)!
            // Every other change lands on a shared record: it copies first.
            let shared = round.isMultiple(of: 2) ? record : nil
            let before = expected
            record[property] = value
            expected[property] = value
            record._checkInvariants()
            #expect(record.values == expected)
            if let shared { #expect(shared.values == before) }
        }
    }

    @Test func aCopyKeepsItsValuesWhenTheOriginalChanges() {
        var original = ObjectRecord(values: [.string("a long string kept by both copies for a while"), .int(1), .list([.int(2)])])
        let copy = original
        original[0] = .int(5)
        original[1] = .string("now a string")
        original[2] = .list([])
        #expect(copy.values == [.string("a long string kept by both copies for a while"), .int(1), .list([.int(2)])])
        #expect(original.values == [.int(5), .string("now a string"), .list([])])
        original._checkInvariants()
        copy._checkInvariants()
    }

    @Test func equalityAndHashingFollowTheValues() {
        let a = ObjectRecord(values: [.double(.nan), .string("x"), .null])
        let b = ObjectRecord(values: [.double(.nan), .string("x"), .null])
        let c = ObjectRecord(values: [.double(.nan), .string("y"), .null])
        let shorter = ObjectRecord(values: [.double(.nan), .string("x")])
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != c)
        #expect(a != shorter)
        #expect(Set([a, b, c, shorter]).count == 3)
        var appended = shorter
        appended.append(.null)
        #expect(appended == a)
    }

    @Test func valuesCanBeReplacedWhole() {
        var record = ObjectRecord(values: [.int(1)])
        record.values = [.string("one"), .uuid(UUID()), .bool(true)]
        record._checkInvariants()
        #expect(record.count == 3)
        #expect(record[2] == .bool(true))
    }

    @Test func aRecordIsItsStorageReference() {
        // `RecordView(_:)` reads a record in a trie leaf through a pointer
        // as its storage reference, without copying (and so retaining) it.
        #expect(MemoryLayout<ObjectRecord>.size == MemoryLayout<Unmanaged<RecordStorage>>.size)
        let record = ObjectRecord(values: [.int(7), .string("seven")])
        withUnsafePointer(to: record) { pointer in
            let view = RecordView(pointer)
            #expect(view.count == 2)
            #expect(view.integer(at: 0) == 7)
            #expect(view[1] == .string("seven"))
            #expect(view.valueIfPresent(2) == nil)
        }
    }

    /// Each slot takes its kind's width: the record of a player (two
    /// integers, two strings) ends 48 bytes after its header word, and a
    /// null takes 8 bytes wherever it is.
    @Test func slotsTakeTheirKindsWidth() {
        let player = ObjectRecord(values: [.int(1), .string("Ann"), .string("team-07"), .int(40)])
        #expect(player.storage.slotsEnd == 48)
        #expect((0..<4).map(player.storage.offset(of:)) == [0, 8, 24, 40])
        let narrow: [PersistedValue] = [.null, .bool(true), .int(1), .float(1), .double(1), .date(Date()), .link(ObjectKey(3)),
                                        .decimal(1)]
        #expect(ObjectRecord(values: ContiguousArray(narrow)).storage.slotsEnd == 8 * narrow.count)
        let wide: [PersistedValue] = [.string("x"), .data(Data([1])), .uuid(UUID()), .objectId(ObjectId("65f1c2a3b4c5d6e7f8091a2b")!),
                                      .list([]), .set([]), .map([])]
        #expect(ObjectRecord(values: ContiguousArray(wide)).storage.slotsEnd == 16 * wide.count)
        // Past twelve values: one word of tags, then the slots.
        let many = ContiguousArray((0..<14).map { $0.isMultiple(of: 2) ? PersistedValue.int(Int64($0)) : .string("s\($0)") })
        let record = ObjectRecord(values: many)
        record._checkInvariants()
        #expect(record.storage.slotsEnd == 8 + 7 * 8 + 7 * 16)
        #expect(record.storage.offset(of: 13) == 8 + 6 * 8 + 6 * 16 + 8)
    }

    /// A value of another width makes the record anew, with the slots after
    /// it moved; a copy sharing the old storage keeps its values.
    @Test func aValueOfAnotherWidthMovesTheSlotsAfterIt() {
        var record = ObjectRecord(values: [.null, .int(7), .string("after")])
        let shared = record
        #expect(record.storage.slotsEnd == 32)
        record[0] = .string("now a string")
        record._checkInvariants()
        #expect(record.storage.slotsEnd == 40)
        #expect(record.values == [.string("now a string"), .int(7), .string("after")])
        record[0] = .null
        record._checkInvariants()
        #expect(record.storage.slotsEnd == 32)
        #expect(record.values == [.null, .int(7), .string("after")])
        #expect(shared.values == [.null, .int(7), .string("after")])
    }

    /// The fold decodes a create's values in place into a record sized as
    /// the previous one of as many values: a prediction too short moves
    /// the values decoded so far to a larger storage, one too long leaves
    /// bytes unused; a decode that fails after the move destroys each
    /// value decoded once.
    @Test func decodingInPlaceFollowsThePredictionOrMoves() throws {
        let long = String(repeating: "a string on the heap ", count: 4)
        let values: [PersistedValue] = [.int(1), .string(long), .string("s"), .int(4), .list([.string(long)])]
        var index = 0
        func decode(_ slot: UnsafeMutableRawPointer) -> UInt64 {
            defer { index += 1 }
            RecordStorage.initialize(slot, with: values[index])
            return RecordStorage.Tag.of(values[index])
        }
        for predicted in [nil, 8, 16, 40, 64, 80, 200] as [Int?] {
            index = 0
            let (storage, bytes) = RecordStorage.decoding(count: values.count, predictedSlotBytes: predicted) { (slot) throws(Never) in
                decode(slot)
            }
            #expect(bytes == 64)
            let record = ObjectRecord(storage: storage)
            record._checkInvariants()
            #expect(Array(record.values) == values)
        }
        struct Stop: Error {}
        for failing in 1..<values.count {
            index = 0
            #expect(throws: Stop.self) {
                _ = try RecordStorage.decoding(count: values.count, predictedSlotBytes: 8) { (slot) throws(Stop) in
                    if index == failing { throw Stop() }
                    return decode(slot)
                }
            }
        }
    }

    /// In place (an unmanaged object's values), a null replacing a wide
    /// value keeps the slot's width with a tag of its own: it reads as a
    /// null, counts as one, and a wide value can take the slot back.
    @Test func aNullReplacingAWideValueInPlaceKeepsItsWidth() {
        let storage = ObjectRecord(values: [.string("a"), .int(2), .uuid(UUID())]).storage
        #expect(!storage.containsNull)
        storage.replace(0, with: .null)
        #expect(storage.tag(of: 0) == RecordStorage.Tag.wideNull)
        #expect(storage.value(at: 0) == .null)
        #expect(storage.value(at: 1) == .int(2))
        #expect(storage.containsNull)
        #expect(storage.array() == [.null, .int(2), storage.value(at: 2)])
        let copy = storage.copy()
        #expect(copy.array() == storage.array())
        storage.replace(0, with: .string("back"))
        #expect(storage.value(at: 0) == .string("back"))
        #expect(!storage.containsNull)
        #expect(copy.value(at: 0) == .null)
    }

    /// A scan reads a non-optional integer at a place fixed by the schema
    /// only while no optional 16-byte kind comes before it: a `String?`
    /// takes 8 bytes when null and 16 otherwise.
    @Test func anIntegerAfterAnOptionalStringIsFoundInEachRecord() throws {
        let store = try Store(configuration: .inMemory())
        try store.write {
            for n in 0..<300 {
                let object = Labelled()
                object.title = "t\(n)"
                object.rank = n
                object.label = n % 3 == 0 ? nil : "label \(n)"
                object.points = 300 - n
                store.add(object)
            }
        }
        // Half of them change width: nil ↔ a string.
        try store.write {
            for object in store.objects(Labelled.self) where object.rank.isMultiple(of: 2) {
                object.label = object.label == nil ? "now \(object.rank)" : nil
            }
        }
        let state = store.committedState()
        #expect(state._invariantViolations().isEmpty)
        let schema = state.schema[try #require(state.tableIndex(named: "Labelled"))]
        let rank = try #require(schema.properties.firstIndex { $0.name == "rank" })
        let points = try #require(schema.properties.firstIndex { $0.name == "points" })
        #expect(RecordStorage.fixedOffset(of: rank, in: schema.properties) == 16)
        #expect(RecordStorage.fixedOffset(of: points, in: schema.properties) == nil)
        let expected = (0..<300).filter { 300 - $0 < 100 }.sorted()
        #expect(store.objects(Labelled.self).filter(#Predicate { $0.points < 100 }).map(\.rank).sorted() == expected)
        #expect(store.objects(Labelled.self).filter(#Predicate { $0.rank < 50 }).count == 50)
        for object in store.objects(Labelled.self) {
            #expect(object.points == 300 - object.rank)
            let wasNil = object.rank % 3 == 0, flipped = object.rank.isMultiple(of: 2)
            #expect((object.label == nil) == (wasNil != flipped))
        }
    }

    /// A record freed releases each string it holds on the heap, and only
    /// those: a short ASCII string, which holds no reference, is skipped
    /// (see `RecordStorage`'s deinit), a short non-ASCII one destroyed.
    /// Counted on the long string's storage object.
    @Test func aFreedRecordReleasesItsHeapStrings() throws {
        #if _pointerBitWidth(_64)
        let long = String(repeating: "on the heap ", count: 10)
        // A native string's second word: flags in the top four bits, then
        // its storage object's address.
        let address = unsafeBitCast(long, to: (UInt64, UInt64).self).1 & 0x0FFF_FFFF_FFFF_FFFF
        let storage = Unmanaged<AnyObject>.fromOpaque(try #require(UnsafeRawPointer(bitPattern: UInt(address)))).takeUnretainedValue()
        let before = _getRetainCount(storage)
        for values: ContiguousArray<PersistedValue> in [
            [.string("short"), .string(long), .string("é"), .int(1), .string(long)],
            ContiguousArray(repeating: .string(long), count: 3) + ContiguousArray(repeating: .string("ascii"), count: 12),
        ] {
            var record: ObjectRecord? = ObjectRecord(values: values)
            #expect(_getRetainCount(storage) > before)
            #expect(record?.values == values)
            record = nil
        }
        #expect(_getRetainCount(storage) == before)
        #endif
    }

    @Test func readingPastTheLastValueTraps() async {
        await #expect(processExitsWith: .failure) {
            let record = ObjectRecord(values: [.int(1)])
            _ = record[1]
        }
    }
}

/// A type whose integer `points` follows an optional string (see
/// `anIntegerAfterAnOptionalStringIsFoundInEachRecord`).
final class Labelled: Object {
    @Persisted var title = ""
    @Persisted var rank = 0
    @Persisted var label: String?
    @Persisted var points = 0
}
extension Labelled: @unchecked Sendable {}
