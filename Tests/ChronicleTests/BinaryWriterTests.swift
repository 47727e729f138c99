import Foundation
import Testing
@testable import Chronicle

/// The writer stores each field through one pointer into a buffer with
/// slack; these tests hold its bytes to an independent encoder that appends
/// a byte at a time, as the writer did before, so the journal's byte format
/// cannot drift.
@Suite("Binary writer")
struct BinaryWriterTests {
    /// The journal format written out by hand, a byte at a time.
    struct Reference {
        var bytes: [UInt8] = []
        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(value & 0x7F) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
        mutating func signed(_ value: Int64) { varint(UInt64(bitPattern: (value << 1) ^ (value >> 63))) }
        mutating func little<T: FixedWidthInteger>(_ value: T) {
            for index in 0..<MemoryLayout<T>.size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }
        mutating func string(_ value: String) {
            varint(UInt64(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
        }

        /// A value as the "Journal format" article lays it out.
        mutating func value(_ value: PersistedValue) {
            switch value {
            case .null: bytes.append(0)
            case .bool(let v): bytes.append(v ? 2 : 1)
            case .int(let v): bytes.append(3); signed(v)
            case .float(let v): bytes.append(4); little(v.bitPattern)
            case .double(let v): bytes.append(5); little(v.bitPattern)
            case .string(let v): bytes.append(6); string(v)
            case .data(let v): bytes.append(7); varint(UInt64(v.count)); bytes.append(contentsOf: v)
            case .date(let v): bytes.append(8); little(v.timeIntervalSinceReferenceDate.bitPattern)
            case .uuid(let v): bytes.append(9); withUnsafeBytes(of: v.uuid) { bytes.append(contentsOf: $0) }
            case .objectId(let v): bytes.append(10); bytes.append(contentsOf: v.bytes)
            case .decimal(let v): bytes.append(11); string(v.description)
            case .link(let key): bytes.append(12); signed(key.rawValue)
            case .list(let values):
                bytes.append(13); varint(UInt64(values.count))
                for element in values { self.value(element) }
            case .set(let values):
                bytes.append(14); varint(UInt64(values.count))
                for element in values { self.value(element) }
            case .map(let entries):
                bytes.append(15); varint(UInt64(entries.count))
                for entry in entries { string(entry.key); self.value(entry.value) }
            }
        }
    }

    /// Every value kind, with lengths and magnitudes at the varint boundaries.
    static let values: [PersistedValue] = EventCodecTests.sampleValues + [
        .int(63), .int(64), .int(-64), .int(-65), .int(8191), .int(8192), .int(Int64(Int32.max)),
        .link(ObjectKey(0)), .link(ObjectKey(-1)), .link(ObjectKey(.max)),
        .string(String(repeating: "x", count: 127)), .string(String(repeating: "é", count: 64)),
        .string(String(repeating: "long ", count: 5_000)), .string("small"),
        .data(Data()), .data(Data(repeating: 7, count: 300)),
        .float(.nan), .double(-.greatestFiniteMagnitude), .date(Date(timeIntervalSinceReferenceDate: -1)),
    ]

    @Test(arguments: values)
    func valueBytesMatchTheReference(_ value: PersistedValue) {
        var reference = Reference()
        reference.value(value)
        #expect(EventCodec.encode(value) == reference.bytes)
    }

    @Test func createEventBytesMatchTheReference() {
        let values: [PersistedValue] = [.int(99_999), .string("abcdefgh"), .string("team-42"), .int(512)]
        for (table, key) in [(0, Int64(1)), (3, 100_000), (200, 1 << 40)] {
            var writer = BinaryWriter()
            EventCodec.encode(.create(table: table, key: ObjectKey(key), values: values), into: &writer)
            var reference = Reference()
            reference.bytes.append(3)  // the create tag
            reference.varint(UInt64(table))
            reference.signed(key)
            reference.varint(UInt64(values.count))
            for value in values { reference.value(value) }
            #expect(writer.bytes == reference.bytes)
        }
    }

    @Test func aBigCommitGrowsPastItsCapacityAndStaysExact() throws {
        // Far more than the initial capacity: the buffer grows many times.
        let events = (0..<5_000).map { index in
            Event.create(table: 0, key: ObjectKey(Int64(index)),
                         values: [.int(Int64(index) * 7_919), .string("name-\(index)"), .double(Double(index) / 3)])
        }
        let commit = Commit(version: 9, timestamp: Date(timeIntervalSinceReferenceDate: 77), label: nil, events: events)
        let bytes = EventCodec.encode(commit)
        var reference = Reference()
        reference.varint(9)
        reference.little(Double(77).bitPattern)
        reference.bytes.append(0)  // no label
        reference.varint(0)  // no metadata
        reference.varint(UInt64(events.count))
        for index in 0..<events.count {
            reference.bytes.append(3)
            reference.varint(0)
            reference.signed(Int64(index))
            reference.varint(3)
            reference.value(.int(Int64(index) * 7_919))
            reference.value(.string("name-\(index)"))
            reference.value(.double(Double(index) / 3))
        }
        #expect(bytes == reference.bytes)
        #expect(try EventCodec.decodeCommit(bytes) == commit)
    }

    @Test func writingAfterReadingTheBytesAppendsAndPatchesInPlace() {
        var writer = BinaryWriter(capacity: 4)
        writer.fixed32(0)
        writer.varint(300)
        let first = writer.bytes
        #expect(first == [0, 0, 0, 0, 0xAC, 0x02])
        writer.raw([9, 8])
        writer.patch32(0x0102_0304, at: 0)
        #expect(writer.count == 8)
        #expect(writer.bytes == [4, 3, 2, 1, 0xAC, 0x02, 9, 8])
        // The array handed out earlier is a value: the writes after it do not show.
        #expect(first == [0, 0, 0, 0, 0xAC, 0x02])
    }

    @Test func fixedWidthFieldsAreLittleEndian() {
        var writer = BinaryWriter(capacity: 1)
        writer.fixed16(0x0102)
        writer.fixed32(0x0304_0506)
        writer.fixed64(0x0708_090A_0B0C_0D0E)
        writer.byte(0xFF)
        writer.blob([UInt8]([1, 2]))
        writer.blob((5..<7).map { UInt8($0) }.lazy.map { $0 })
        #expect(writer.bytes == [2, 1, 6, 5, 4, 3, 0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 9, 8, 7, 0xFF, 2, 1, 2, 2, 5, 6])
    }
}
