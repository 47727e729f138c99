import Foundation
import Testing
@testable import Chronicle

/// Restoring a checkpoint builds the objects, indexes and backlinks in
/// bulk (``TableRestorer``): the result must be the folded state, with
/// every index as the fold keeps it, and a file the fold could not have
/// made must still be rejected.
@Suite("Replay: restoring checkpoint files in bulk")
struct CheckpointRestoreTests {
    static let item = TypeSchema(name: "RsItem", properties: [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "team", type: .string, isIndexed: true),
        PropertySchema(name: "score", type: .int, isOptional: true, isIndexed: true),
        PropertySchema(name: "next", type: .object, objectType: "RsItem"),
    ])
    static let tag = TypeSchema(name: "RsTag", properties: [
        PropertySchema(name: "code", type: .string, isPrimaryKey: true),
        PropertySchema(name: "items", type: .object, objectType: "RsItem", collection: .list),
    ])

    /// Items whose primary keys descend as their object keys ascend (and
    /// some negative, which the hash trie holds), linked in a chain, and
    /// tags with string primary keys linking to items, some twice.
    static func commits(items: Int) -> [Commit] {
        var events: [Event] = []
        for index in 0..<items {
            let id = index % 10 == 9 ? -Int64(index) : Int64(items - index) * 7
            let next: PersistedValue = index > 0 ? .link(ObjectKey(Int64(index))) : .null
            events.append(.create(table: 0, key: ObjectKey(Int64(index + 1)), values: [
                .int(id), .string(index % 5 == 0 ? "nämë \(index)" : "name \(index)"), .string("team-\(index % 37)"),
                index % 4 == 0 ? .null : .int(Int64(index % 11)), next,
            ]))
        }
        for index in 0..<(items / 3) {
            let target = ObjectKey(Int64(index * 3 + 1))
            events.append(.create(table: 1, key: ObjectKey(Int64(index + 1)), values: [
                .string("tag-\(index)"), .list([.link(target), .link(ObjectKey(1)), .link(target)]),
            ]))
        }
        return [
            Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1), events: [.defineType(item), .defineType(tag)]),
            Commit(version: 2, timestamp: Date(timeIntervalSinceReferenceDate: 2), events: events),
        ]
    }

    /// The state in `bytes` (a checkpoint of `journal`), or the rejection.
    static func restore(_ bytes: [UInt8], _ journal: Journal) -> Result<StoreState, CheckpointFile.Rejection> {
        CheckpointFile.decode(bytes, journal: journal)
    }

    @Test(arguments: [1, 2, 64, 65, 3000])
    func aRestoredStateIsTheFoldedStateWithTheSameIndexes(items: Int) throws {
        let commits = Self.commits(items: items)
        let url = try ReplayFixtures.journal(commits, name: "restore-\(items)")
        let journal = try Journal(contentsOf: url)
        let folded = try ReplayFixtures.prefixStates(commits).last!
        let restored = try Self.restore(try CheckpointFile.encode(folded, journal: journal),
                                        journal).get()
        #expect(restored.isContentEqual(folded))
        #expect(restored.version == folded.version)
        #expect(restored._invariantViolations() == [])
        for table in folded.schema.indices {
            #expect(restored.nextKey(table: table) == folded.nextKey(table: table))
            for (key, record) in folded.objects(table: table) {
                let primaryKey = record.values[0]
                #expect(restored.key(table: table, primaryKey: primaryKey) == key)
                #expect(restored.backlinks(table: table, key: key) == folded.backlinks(table: table, key: key))
            }
        }
        for value in (0..<37).map({ PersistedValue.string("team-\($0)") }) + [.string("team-none")] {
            #expect(restored.keys(table: 0, property: 2, equalTo: value) == folded.keys(table: 0, property: 2, equalTo: value))
        }
        for value in (0..<11).map({ PersistedValue.int(Int64($0)) }) + [.null] {
            #expect(restored.keys(table: 0, property: 3, equalTo: value) == folded.keys(table: 0, property: 3, equalTo: value))
        }
        // The restored state folds on like the folded one.
        let more = Commit(version: 3, timestamp: Date(timeIntervalSinceReferenceDate: 3), events: [
            .delete(table: 0, key: ObjectKey(1)),
            .create(table: 0, key: ObjectKey(Int64(items + 1)), values: [.int(1), .string("new"), .string("team-1"), .int(3), .null]),
        ])
        let continued = try restored.applying(more).state
        #expect(continued._invariantViolations() == [])
        #expect(continued.isContentEqual(try folded.applying(more).state))
    }

    /// A file of many blocks restores, and a damaged byte anywhere — the
    /// header, the directory, a block — is a checksum rejection.
    @Test func aLargeFileRestoresAndADamagedByteAnywhereIsAChecksumRejection() throws {
        let commits = Self.commits(items: 30_000)
        let url = try ReplayFixtures.journal(commits, name: "restore-large")
        let journal = try Journal(contentsOf: url)
        let folded = try ReplayFixtures.prefixStates(commits).last!
        let bytes = try CheckpointFile.encode(folded, journal: journal)
        try #require(bytes.count >= 1 << 20)
        #expect(try Self.restore(bytes, journal).get().isContentEqual(folded))
        for offset in [20, CheckpointLayout.headerSize - 1, CheckpointLayout.headerSize + 3, bytes.count / 2, bytes.count - 100, bytes.count - 1] {
            var damaged = bytes
            damaged[offset] ^= 0x20
            guard case .failure(.checksum) = Self.restore(damaged, journal) else {
                Issue.record("a flipped byte at \(offset) of \(bytes.count) was not rejected as a checksum mismatch")
                continue
            }
        }
    }

    /// Strings that are equal (canonically equivalent) but differ in their
    /// bytes share one entry of an index, as the fold files them.
    @Test func equalStringsWithDifferentBytesShareAnIndexEntry() throws {
        let teams = ["K", "\u{212A}", "e\u{301}", "\u{E9}", "K", "plain", "\u{E9}"]
        #expect("K" == "\u{212A}" && "e\u{301}" == "\u{E9}")
        let events: [Event] = teams.enumerated().map { index, team in
            .create(table: 0, key: ObjectKey(Int64(index + 1)), values: [.int(Int64(index)), .string("n"), .string(team), .null, .null])
        }
        let commits = [
            Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1), events: [.defineType(Self.item), .defineType(Self.tag)]),
            Commit(version: 2, timestamp: Date(timeIntervalSinceReferenceDate: 2), events: events),
        ]
        let url = try ReplayFixtures.journal(commits, name: "equivalent-strings")
        let journal = try Journal(contentsOf: url)
        let folded = try ReplayFixtures.prefixStates(commits).last!
        let restored = try Self.restore(try CheckpointFile.encode(folded, journal: journal),
                                        journal).get()
        #expect(restored._invariantViolations() == [])
        for team in teams {
            #expect(restored.keys(table: 0, property: 2, equalTo: .string(team)) == folded.keys(table: 0, property: 2, equalTo: .string(team)))
        }
        #expect(restored.keys(table: 0, property: 2, equalTo: .string("K")) == [ObjectKey(1), ObjectKey(2), ObjectKey(5)])
    }

    @Test(arguments: [3, 4, 5, 11])
    func aRestoredRandomHistoryKeepsItsInvariants(seed: UInt64) throws {
        let commits = RandomHistory.commits(seed: seed, count: 300, maxEvents: 12)
        let url = try ReplayFixtures.journal(commits, name: "random-\(seed)")
        let journal = try Journal(contentsOf: url)
        let folded = try ReplayFixtures.prefixStates(commits).last!
        let restored = try Self.restore(try CheckpointFile.encode(folded, journal: journal),
                                        journal).get()
        #expect(restored.isContentEqual(folded))
        #expect(restored._invariantViolations() == [])
    }

    /// A checkpoint of `state` whose objects of table `table` are listed as `objects`, not as the writer lists them.
    static func encode(_ state: StoreState, journal: Journal, table: Int,
                       objects: [(ObjectKey, [PersistedValue])]) throws -> [UInt8] {
        var encoder = CheckpointEncoder(schema: state.schema, nextKeys: state.schema.indices.map { state.nextKey(table: $0).rawValue })
        for index in state.schema.indices {
            encoder.beginTable()
            let listed = index == table ? objects : state.objects(table: index).map { ($0.key, Array($0.record.values)) }
            for (key, values) in listed { encoder.append(key: key.rawValue, values: values) }
        }
        return encoder.finish(prefix: try #require(try journal.prefix(through: state.version)))
    }

    @Test(arguments: ["duplicate integer primary key", "duplicate string primary key", "keys out of order",
                      "key listed twice", "key beyond the next key", "link to a negative key", "wrong type"])
    func aFileTheFoldCouldNotHaveMadeIsRejected(tampering: String) throws {
        let commits = Self.commits(items: 9)
        let url = try ReplayFixtures.journal(commits, name: "tampered")
        let journal = try Journal(contentsOf: url)
        let state = try ReplayFixtures.prefixStates(commits).last!
        let items = state.objects(table: 0).map { ($0.key, Array($0.record.values)) }
        let tags = state.objects(table: 1).map { ($0.key, Array($0.record.values)) }
        #expect(try Self.restore(try Self.encode(state, journal: journal, table: 0, objects: items), journal)
                    .get().isContentEqual(state))
        var table = 0
        var objects = items
        switch tampering {
        case "duplicate integer primary key": objects[5].1[0] = objects[2].1[0]
        case "duplicate string primary key":
            table = 1
            objects = tags
            objects[2].1[0] = objects[0].1[0]
        case "keys out of order": objects.swapAt(3, 4)
        case "key listed twice": objects[4].0 = objects[3].0
        case "key beyond the next key": objects[8].0 = ObjectKey(100)
        case "link to a negative key": objects[2].1[4] = .link(ObjectKey(-3))
        default: objects[1].1[1] = .int(4)
        }
        let bytes = try Self.encode(state, journal: journal, table: table, objects: objects)
        guard case .failure(.invalidState) = Self.restore(bytes, journal) else {
            Issue.record("\(tampering): expected .invalidState, got \(Self.restore(bytes, journal))")
            return
        }
    }

    static func decodeAll(_ bytes: [UInt8]) -> Result<[PersistedValue], BinaryReader.Malformed> {
        bytes.withUnsafeBytes { raw in
            var r = BinaryReader(raw)
            var decoded: [PersistedValue] = []
            while !r.isAtEnd {
                do throws(BinaryReader.Malformed) { decoded.append(try CheckpointFile.decodeValue(&r)) } catch {
                    return .failure(error)
                }
            }
            return .success(decoded)
        }
    }

    /// The checkpoint decoder reads ints and strings itself; it must read them as the codec writes them.
    @Test func theDecodersShortcutsAgreeWithTheCodec() throws {
        let values: [PersistedValue] = [
            .int(0), .int(-1), .int(.max), .int(.min), .string(""), .string("team-7"), .string("a longer ASCII string than fifteen"),
            .string("nämë ✓"), .null, .bool(true), .double(1.5), .link(ObjectKey(3)), .list([.int(1), .string("x")]),
        ]
        var w = BinaryWriter(capacity: 256)
        EventCodec.encode(PersistedValue.int(5), into: &w)
        #expect(w.bytes.first == CheckpointFile.intTag)
        w = BinaryWriter(capacity: 256)
        EventCodec.encode(PersistedValue.string("x"), into: &w)
        #expect(w.bytes.first == CheckpointFile.stringTag)
        w = BinaryWriter(capacity: 256)
        for value in values { EventCodec.encode(value, into: &w) }
        #expect(try Self.decodeAll(w.bytes).get() == values)
        // Bytes that are not UTF-8, in a string: an error, not a repaired string.
        let invalid: [UInt8] = [CheckpointFile.stringTag, 3, 0x61, 0xFF, 0x62]
        guard case .failure = Self.decodeAll(invalid) else {
            Issue.record("invalid UTF-8 decoded")
            return
        }
    }
}
