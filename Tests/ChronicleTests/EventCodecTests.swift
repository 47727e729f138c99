import Foundation
import Testing
@testable import Chronicle

@Suite("Event codec")
struct EventCodecTests {
    static let sampleValues: [PersistedValue] = [
        .null, .bool(true), .bool(false), .int(0), .int(-1), .int(.max), .int(.min),
        .float(1.5), .double(-0.25), .double(.infinity), .string(""), .string("héllo ✓"),
        .data(Data([0, 1, 2, 255])), .date(Date(timeIntervalSinceReferenceDate: 12345.678)),
        .uuid(UUID()), .objectId(ObjectId.generate()), .decimal(Decimal(string: "12345.6789")!),
        .link(ObjectKey(42)), .list([.int(1), .string("a")]), .set([.string("x")]),
        .map([MapEntry(key: "a", value: .int(1)), MapEntry(key: "b", value: .null)]),
    ]

    @Test(arguments: sampleValues)
    func valueRoundTrips(_ value: PersistedValue) throws {
        let bytes = EventCodec.encode(value)
        let decoded = try bytes.withUnsafeBytes { raw in
            var reader = BinaryReader(raw)
            let value = try EventCodec.decodeValue(&reader)
            #expect(reader.isAtEnd)
            return value
        }
        #expect(decoded == value)
    }

    @Test func commitRoundTripsWithEveryEventKind() throws {
        let schema = TypeSchema(name: "Person", properties: [
            PropertySchema(name: "_id", type: .objectId, isPrimaryKey: true),
            PropertySchema(name: "friends", type: .object, objectType: "Person", collection: .list),
            PropertySchema(name: "age", type: .int, isOptional: true, isIndexed: true),
        ])
        let key = ObjectKey(7)
        let events: [Event] = [
            .defineType(schema),
            .addProperty(table: 0, PropertySchema(name: "nick", type: .string)),
            .create(table: 0, key: key, values: [.objectId(ObjectId()), .list([]), .null]),
            .set(table: 0, key: key, property: 2, value: .int(30)),
            .listInsert(table: 0, key: key, property: 1, index: 0, value: .link(key)),
            .listReplace(table: 0, key: key, property: 1, index: 0, value: .link(ObjectKey(8))),
            .listMove(table: 0, key: key, property: 1, from: 0, to: 1),
            .listRemove(table: 0, key: key, property: 1, index: 0),
            .setInsert(table: 0, key: key, property: 1, value: .string("a")),
            .setRemove(table: 0, key: key, property: 1, value: .string("a")),
            .mapSet(table: 0, key: key, property: 1, mapKey: "k", value: .double(1)),
            .mapRemove(table: 0, key: key, property: 1, mapKey: "k"),
            .clear(table: 0, key: key, property: 1),
            .delete(table: 0, key: key),
        ]
        let commit = Commit(version: 3, timestamp: Date(timeIntervalSinceReferenceDate: 1.25), label: "adopt dog",
                            metadata: ["author": "me", "device": "linux"], events: events)
        let decoded = try EventCodec.decodeCommit(EventCodec.encode(commit))
        #expect(decoded == commit)
    }

    @Test func truncatedCommitsThrowInsteadOfTrapping() {
        let commit = Commit(version: 1, timestamp: Date(), label: "x", events: [
            .create(table: 0, key: ObjectKey(1), values: Self.sampleValues),
        ])
        let bytes = EventCodec.encode(commit)
        for length in 0..<bytes.count {
            #expect(throws: BinaryReader.Malformed.self) { try EventCodec.decodeCommit(Array(bytes[..<length])) }
        }
    }

    @Test func hugeLengthFieldIsRejectedBeforeAllocating() {
        // version 1, timestamp, no label, no metadata, then an event count of 2^62.
        var w = BinaryWriter()
        w.varint(1); w.fixed64(0); w.byte(0); w.varint(0); w.varint(UInt64(1) << 62)
        #expect(throws: BinaryReader.Malformed.self) { try EventCodec.decodeCommit(w.bytes) }
    }

    @Test func crc32cMatchesTheStandardCheckValue() {
        // The catalogued check value of CRC-32C over the ASCII digits 1–9.
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        let long = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let whole = CRC32C.checksum(long)
        let split = long.withUnsafeBytes { raw in
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[500...]),
                            continuing: CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[..<500])))
        }
        #expect(whole == split)
        // The table method too, whichever the checksum above used.
        #expect(Array("123456789".utf8).withUnsafeBytes { CRC32C.tableChecksum($0) } == 0xE306_9283)
    }

    /// The processor's instruction (where this machine has it) and the table
    /// method agree for every length and alignment around their eight-byte
    /// steps, and when continued.
    @Test func crc32cInstructionAndTableMethodAgree() {
        var generator = SplitMix64(seed: 32)
        let bytes = (0..<300).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        bytes.withUnsafeBytes { raw in
            for start in 0..<9 {
                for end in stride(from: start, through: raw.count, by: 7) {
                    let slice = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                    let seed = UInt32(truncatingIfNeeded: generator.next())
                    #expect(CRC32C.checksum(slice, continuing: seed) == CRC32C.tableChecksum(slice, continuing: seed),
                            "bytes \(start)..<\(end)")
                }
            }
        }
        #if arch(x86_64) && os(Linux)
        // Every x86-64 machine CI runs on has SSE 4.2; without it this test
        // would compare the table method with itself.
        #expect(CRC32C.usesHardware)
        #endif
    }

    @Test func objectIdStringFormRoundTripsAndOrders() throws {
        let a = ObjectId.generate()
        let b = ObjectId.generate()
        #expect(ObjectId(a.description) == a)
        #expect(a.description.count == 24)
        #expect(a < b)
        #expect(ObjectId("zz") == nil)
    }

    @Test(arguments: [
        [0xC3, 0x28], [0xF1, 0x80, 0x80], [0xE1, 0x80], [0xED, 0xA0, 0x80], [0xC0, 0xAF],
        [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x61, 0x80], [0xF0, 0x9F, 0x98],
    ] as [[UInt8]])
    func invalidUTF8IsRejectedWhateverItsLength(bytes: [UInt8]) {
        #expect(bytes.withUnsafeBufferPointer(BinaryReader.validUTF8) == nil)
        let framed = [UInt8(bytes.count)] + bytes
        framed.withUnsafeBytes { raw in
            var reader = BinaryReader(raw)
            #expect(throws: BinaryReader.Malformed.self) { try reader.string() }
        }
    }

    @Test(arguments: ["", "plain ascii", "é", "日本語のテキスト", "🐕 dog", "mixed ß and 😀 and \u{10FFFF}"])
    func validUTF8DecodesToTheSameString(text: String) {
        let bytes = Array(text.utf8)
        #expect(bytes.withUnsafeBufferPointer(BinaryReader.validUTF8) == text)
    }

    /// The fold's read-ahead reads a `.create` event's header — table,
    /// key, value count — from one load when it has its commonest form
    /// (``EventCodec/createHeader(_:)``), and the way every event is read
    /// otherwise. Both must give what the reader that keeps creates in the
    /// events gives: for keys of every varint length, negative keys, table
    /// indexes and counts past one byte, and a create among the last eight
    /// bytes of the commit.
    @Test func createsDecodedIntoRecordsMatchTheEventsForEveryHeaderForm() throws {
        let keys: [Int64] = [0, 1, -1, 63, -64, 64, 8_191, 8_192, 1 << 20 - 1, 1 << 20, -(1 << 20) - 1,
                             1 << 27 - 1, 1 << 27, 1 << 40, .max, .min]
        var events: [Event] = []
        // Every key with one-byte table indexes (the one-load form) and
        // with one past a byte (the other).
        for (index, key) in keys.enumerated() {
            for table in [0, 127, 128, 300] {
                events.append(.create(table: table, key: ObjectKey(key),
                                      values: (0..<index % 3).map { .int(Int64($0) * key) }))
                events.append(.set(table: 1, key: ObjectKey(key), property: 0, value: .string("between")))
            }
        }
        events.append(.create(table: 2, key: ObjectKey(9), values: (0..<128).map { .int(Int64($0)) }))
        events.append(.create(table: 3, key: ObjectKey(10), values: (0..<200).map { .string("v\($0)") }))
        // Last: creates of no values, within eight bytes of the end.
        events.append(.create(table: 4, key: ObjectKey(11), values: []))
        events.append(.create(table: 4, key: ObjectKey(12), values: []))
        let commit = Commit(version: 3, timestamp: Date(timeIntervalSinceReferenceDate: 3), events: events)
        let bytes = EventCodec.encode(commit)
        var creates = DecodedCreates()
        let (kept, taken) = try bytes.withUnsafeBytes { raw in
            (try EventCodec.decodeCommit(raw), try EventCodec.decodeCommit(raw, creates: &creates))
        }
        #expect(kept.events == events)
        #expect(taken.events == events.filter { if case .create = $0 { false } else { true } })
        var rebuilt = taken.events
        for create in creates.creates.reversed() {
            rebuilt.insert(.create(table: create.table, key: create.key, values: Array(create.record.elements)), at: create.before)
        }
        #expect(rebuilt == events)
        #expect(creates.creates.count == 4 * keys.count + 4)
    }

    /// A create whose count claims more values than bytes remain fails
    /// with the same error both ways, the header read in one load or not.
    @Test(arguments: [0, 127])
    func aCreateCountingPastTheEndFailsAsTheEventReaderFails(table: Int) throws {
        let commit = Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1), events: [
            .create(table: table, key: ObjectKey(300), values: [.int(1), .int(2), .int(3), .int(4), .int(5)]),
        ])
        var bytes = EventCodec.encode(commit)
        // The count follows the tag, the table and the two-byte key; five
        // two-byte ints follow it.
        let countAt = try #require(bytes.indices.last { bytes[$0] == 5 && $0 + 11 == bytes.count })
        bytes[countAt] = 0x7F
        var creates = DecodedCreates()
        let kept = bytes.withUnsafeBytes { raw in Result { () throws(BinaryReader.Malformed) in try EventCodec.decodeCommit(raw) } }
        let taken = bytes.withUnsafeBytes { raw in
            Result { () throws(BinaryReader.Malformed) in try EventCodec.decodeCommit(raw, creates: &creates) }
        }
        guard case .failure(let expected) = kept, case .failure(let error) = taken else {
            Issue.record("both decodes should fail: \(kept), \(taken)")
            return
        }
        #expect(error.offset == expected.offset)
        #expect(error.reason == expected.reason)
        #expect(error.reason.contains("exceeds"))
    }
}
