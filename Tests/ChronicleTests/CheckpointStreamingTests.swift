import Foundation
import Testing
@testable import Chronicle

/// A checkpoint file is written as it is encoded: its blocks a piece of
/// about a megabyte at a time, right after the header, then the directory
/// and entries, then the header at offset 0 (format 4). The writer never
/// holds the file; files of format 3 (the head first) are still read.
@Suite("Replay: checkpoint files written in pieces (format 4), format 3 still read")
struct CheckpointStreamingTests {
    static let entry = TypeSchema(name: "StEntry", properties: [
        PropertySchema(name: "n", type: .int, isPrimaryKey: true),
        PropertySchema(name: "text", type: .string),
    ])

    /// 3,000 entries of about a kilobyte each: a file of three pieces.
    static let fixture = Result { () throws -> LazyCheckpointTests.Fixture in
        let text = String(repeating: "chronicle ", count: 100)
        let events = (0..<3_000).map { index in
            Event.create(table: 0, key: ObjectKey(Int64(index + 1)), values: [.int(Int64(index)), .string("\(index) \(text)")])
        }
        let commits = [
            Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1), events: [.defineType(entry)]),
            Commit(version: 2, timestamp: Date(timeIntervalSinceReferenceDate: 2), events: events),
        ]
        let journal = try Journal(contentsOf: ReplayFixtures.journal(commits, name: "checkpoint-streaming"))
        let folded = try ReplayFixtures.prefixStates(commits).last!
        return .init(journal: journal, folded: folded, checkpoint: try CheckpointFile.encode(folded, journal: journal))
    }

    /// What the encoder hands its sink: each piece's offset and bytes, in order.
    static func pieces(of fixture: LazyCheckpointTests.Fixture) throws -> [(offset: Int, bytes: [UInt8])] {
        let prefix = try #require(try fixture.journal.prefix(through: fixture.folded.version))
        var pieces: [(offset: Int, bytes: [UInt8])] = []
        CheckpointFile.encode(fixture.folded, prefix: prefix) { pieces.append(($1, Array($0))) }
        return pieces
    }

    @Test func theBlocksGoOutAPieceAtATimeAndTheHeaderLast() throws {
        let fixture = try Self.fixture.get()
        let pieces = try Self.pieces(of: fixture)
        let file = fixture.checkpoint
        try #require(file.count > 2 * CheckpointEncoder.pieceBytes)
        // Blocks first, back to back from the end of the header; then the
        // directory and entries to the end of the file; the header last.
        #expect(pieces.count >= 4)
        var next = CheckpointLayout.headerSize
        for piece in pieces.dropLast() {
            #expect(piece.offset == next)
            next += piece.bytes.count
        }
        #expect(next == file.count)
        #expect(pieces.last?.offset == 0 && pieces.last?.bytes.count == CheckpointLayout.headerSize)
        // No piece is the file: each holds at most a piece's bytes and one block.
        let largest = pieces.map(\.bytes.count).max() ?? 0
        #expect(largest <= CheckpointEncoder.pieceBytes + CheckpointEncoder.blockBytes + 2_048)
        // Put together, they are the file that decodes to the fold.
        var assembled: [UInt8] = []
        for piece in pieces { piece.bytes.withUnsafeBytes { assembled.write($0, at: piece.offset) } }
        #expect(assembled == file)
        let layout = try file.withUnsafeBytes { try CheckpointLayout(parsing: $0) }
        #expect(layout.format == 4 && layout.tables[0].blocksStart == CheckpointLayout.headerSize)
        #expect(try CheckpointFile.decode(file, journal: fixture.journal).get().isContentEqual(fixture.folded))
        #expect(try LazyCheckpointTests.lazy(file, fixture.journal).object(table: 0, key: ObjectKey(2_999))
                    == fixture.folded.object(table: 0, key: ObjectKey(2_999)))
    }

    /// A record's values go into the file straight from its slots, byte
    /// for byte as encoding the values themselves would put them (links,
    /// nulls, collections and strings of every length included).
    @Test func recordsAreEncodedAsTheirValuesWouldBe() throws {
        let commits = RandomHistory.commits(seed: 12, count: 150)
        let journal = try Journal(contentsOf: ReplayFixtures.journal(commits, name: "encode-records"))
        let state = try ReplayFixtures.prefixStates(commits).last!
        let prefix = try #require(try journal.prefix(through: state.version))
        var encoder = CheckpointEncoder(schema: state.schema, nextKeys: state.schema.indices.map { state.nextKey(table: $0).rawValue },
                                        schemaVersion: state.schemaVersion)
        var objects = 0
        for table in state.schema.indices {
            encoder.beginTable()
            for (key, record) in state.objects(table: table) {
                encoder.append(key: key.rawValue, values: Array(record.values))
                objects += 1
            }
        }
        try #require(objects > 50)
        #expect(encoder.finish(prefix: prefix) == CheckpointFile.encode(state, prefix: prefix))
    }

    /// The file a store writes is the one the encoder makes, in format 4.
    @Test func theFileOnDiskIsTheEncodersFile() throws {
        let configuration = Store.Configuration(fileURL: try JournalFixtures.journalURL(), durability: .none)
        let store = try Store(configuration: configuration)
        try store.write {
            for index in 0..<2_500 { store.create(Person.self, value: ["firstName": "\(index) " + String(repeating: "y", count: 900), "lastName": "L"]) }
        }
        try store.writeCheckpoint()
        let journal = try Journal(contentsOf: try #require(configuration.fileURL))
        let expected = try CheckpointFile.encode(store.committedState(), journal: journal)
        let written = try JournalFixtures.bytes(CheckpointFile.url(for: try #require(configuration.fileURL)))
        try #require(written.count > 2 * CheckpointEncoder.pieceBytes)
        #expect(written == expected)
        #expect(written[8] == 4 && written[9] == 0)
        try store.close()
    }

    /// A file whose header's blocks length is not where the directory
    /// starts is rejected as malformed, never read as something else.
    @Test(arguments: [-1, 1, 4_096, Int(Int32.max)])
    func aBlocksLengthThatIsOffIsAFormatRejection(by delta: Int) throws {
        let fixture = try Self.fixture.get()
        var bytes = fixture.checkpoint
        let at = CheckpointLayout.blocksLengthOffset
        let length = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
        withUnsafeBytes(of: UInt64(Int(length) + delta).littleEndian) { bytes.replaceSubrange(at..<(at + 8), with: $0) }
        bytes = CheckpointLayout.resealed(bytes)
        guard case .failure(let rejection) = CheckpointFile.decode(bytes, journal: fixture.journal) else {
            Issue.record("a blocks length off by \(delta) was accepted")
            return
        }
        guard case .format = rejection else {
            Issue.record("a blocks length off by \(delta): \(rejection), not a format rejection")
            return
        }
        #expect(throws: (any Error).self) { try LazyCheckpointTests.lazy(bytes, fixture.journal) }
    }

    /// Resealing a file the encoder wrote changes nothing, in either format.
    @Test func resealingAnIntactFileChangesNothing() throws {
        #expect(CheckpointLayout.resealed(try Self.fixture.get().checkpoint) == (try Self.fixture.get().checkpoint))
        let (_, checkpoint) = try Self.formatThree()
        #expect(CheckpointLayout.resealed(checkpoint) == checkpoint)
    }

    /// A journal and a checkpoint file of it that the format 3 encoder
    /// wrote (kept in the fuzz corpus, `format-3-store.checkpoint`).
    static func formatThree() throws -> (journal: [UInt8], checkpoint: [UInt8]) {
        let input = try JournalFixtures.bytes(FuzzSeedTests.corpus.appendingPathComponent("checkpoint/format-3-store.checkpoint"))
        let length = Int(input[0]) | Int(input[1]) << 8 | Int(input[2]) << 16 | Int(input[3]) << 24
        return (Array(input[4..<(4 + length)]), Array(input[(4 + length)...]))
    }

    /// A store upgraded from a release that wrote format 3 opens with its
    /// checkpoint file (no fold), wholly and lazily.
    @Test func aFormatThreeFileIsStillRead() throws {
        let (journalBytes, checkpoint) = try Self.formatThree()
        let url = try JournalFixtures.journalURL()
        try JournalFixtures.write(journalBytes, to: url)
        try JournalFixtures.write(checkpoint, to: CheckpointFile.url(for: url))
        let journal = try Journal(contentsOf: url)
        let folded = try Store.fold(journal)
        try #require(folded.version > 0)
        let layout = try checkpoint.withUnsafeBytes { try CheckpointLayout(parsing: $0) }
        #expect(layout.format == 3)
        let loaded = try CheckpointFile.load(for: journal).get()
        #expect(loaded.version == folded.version && loaded.isContentEqual(folded))
        let lazy = try CheckpointFile.load(for: journal, deferringFrom: 1).get()
        for table in folded.schema.indices {
            for key in 0..<folded.nextKey(table: table).rawValue {
                #expect(lazy.object(table: table, key: ObjectKey(key)) == folded.object(table: table, key: ObjectKey(key)))
            }
        }
        #expect(lazy._invariantViolations() == [])
    }
}
