import Foundation
import Testing
@testable import Chronicle
import ChronicleTesting

/// `ObjectRecord` keeps its values in one allocation, each in a 16-byte
/// slot, their kinds packed in a header word and, past twelve values, in
/// words after it (see `RecordStorage`). These tests read back what was put
/// in, for every kind, in both places, and after changes of kind, in place
/// and on a shared record's copy.
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

    @Test func readingPastTheLastValueTraps() async {
        await #expect(processExitsWith: .failure) {
            let record = ObjectRecord(values: [.int(1)])
            _ = record[1]
        }
    }
}
