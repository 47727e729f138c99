import Foundation
import Testing
@testable import Chronicle

@Suite("Replay: JSON Lines")
struct ReplayJSONLinesTests {
    /// Values at the edges of exactness.
    static let awkward: [PersistedValue] = [
        .null, .bool(true), .bool(false), .int(.min), .int(.max), .int(0),
        .double(-0.0), .double(.nan), .double(Double(bitPattern: 0x7FF8_0000_0000_0001)), .double(.infinity),
        .double(-.infinity), .double(.leastNonzeroMagnitude), .double(.greatestFiniteMagnitude), .double(0.1),
        .double(1e300), .double(-123.456e-78), .float(0.1), .float(-0.0), .float(.nan), .float(.leastNonzeroMagnitude),
        .float(Float(bitPattern: 0xFFC0_0001)), .float(3.4028235e38),
        .string(""), .string("quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7} emoji 🦮 é \u{2028}"),
        .data(Data()), .data(Data((0...255).map { UInt8($0) })),
        .date(Date(timeIntervalSinceReferenceDate: 0.1 + 1e-9)), .date(Date(timeIntervalSinceReferenceDate: -1e10)),
        .date(Date(timeIntervalSinceReferenceDate: .nan)),
        .uuid(UUID()), .objectId(ObjectId()), .decimal(Decimal(string: "123456789012345678901234567890.123456789")!),
        .decimal(Decimal(string: "-0.000001")!), .link(ObjectKey(0)), .link(ObjectKey(.max)),
        .list([.int(1), .list([.string("nested")])]), .set([.string("a"), .string("b")]),
        .map([MapEntry(key: "b", value: .int(1)), MapEntry(key: "a", value: .null), MapEntry(key: "", value: .map([]))]),
    ]

    static func awkwardCommits() -> [Commit] {
        let t = Date(timeIntervalSinceReferenceDate: 817_000_000.123_456_7)
        return awkward.enumerated().map { index, value in
            Commit(version: UInt64(index + 1), timestamp: index == 3 ? Date(timeIntervalSinceReferenceDate: .nan) : t + Double(index),
                   label: index % 2 == 0 ? "label \(index) \"q\"" : nil, metadata: index % 3 == 0 ? ["k": "v\n", "é": ""] : [:],
                   events: [.set(table: index, key: ObjectKey(Int64(index) - 5), property: 1, value: value),
                            .mapSet(table: 0, key: ObjectKey(1), property: 2, mapKey: "k\u{1}", value: value)])
        }
    }

    /// Commits compared by their exact bytes (NaN is not == NaN).
    static func bytes(_ commits: [Commit]) -> [[UInt8]] { commits.map(EventCodec.encode) }

    @Test func roundTripIsExactForAwkwardValuesAndARandomHistory() throws {
        for commits in [Self.awkwardCommits(), RandomHistory.commits(seed: 31, count: 200)] {
            let source = Journal.inMemory()
            for commit in commits { try source.append(commit) }
            let url = try JournalFixtures.journalURL().deletingLastPathComponent().appendingPathComponent("export.jsonl")
            try source.exportJSONLines(to: url)
            let text = try String(contentsOf: url, encoding: .utf8)
            #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == commits.count + 1)
            let target = Journal.inMemory()
            #expect(try target.importJSONLines(from: url) == commits.count)
            #expect(Self.bytes(try JournalFixtures.readAll(target)) == Self.bytes(commits))
            for commit in commits {
                #expect(EventCodec.encode(try JSONLines.decode(JSONLines.encode(commit))) == EventCodec.encode(commit))
            }
        }
    }

    @Test func importIntoAFileGivesAnIdenticalJournal() throws {
        let commits = RandomHistory.commits(seed: 32, count: 100)
        let original = try ReplayFixtures.journal(commits)
        let jsonl = original.deletingLastPathComponent().appendingPathComponent("x.jsonl")
        try Journal(contentsOf: original).exportJSONLines(to: jsonl)
        let copy = original.deletingLastPathComponent().appendingPathComponent("copy.journal")
        let journal = try Journal(fileURL: copy, durability: .none)
        try journal.importJSONLines(from: jsonl)
        try journal.close()
        // Identical after the header (whose file id is random per journal).
        let header = JournalFormat.headerSize
        #expect(try Data(contentsOf: copy).dropFirst(header) == Data(contentsOf: original).dropFirst(header))
    }

    /// The file is read in chunks: a line cut across reads anywhere (inside a
    /// multi-byte character, between \r and \n) is read as one.
    @Test func linesCutAcrossReadsAnywhereImportTheSame() throws {
        let source = Journal.inMemory(durability: .none)
        var commits = Self.awkwardCommits()
        commits.append(Commit(version: UInt64(commits.count + 1), timestamp: Date(timeIntervalSinceReferenceDate: 1),
                              label: String(repeating: "long é ", count: 20_000), events: []))
        for commit in commits { try source.append(commit) }
        var text = ""
        try source.exportJSONLines { text += $0.replacingOccurrences(of: "\n", with: "\r\n") }
        let bytes = Array(text.utf8)
        for size in [1, 2, 3, 7, 64, 4096, bytes.count] {
            let target = Journal.inMemory(durability: .none)
            var offset = 0
            let count = try target.importJSONLines { () -> Data? in
                guard offset < bytes.count else { return nil }
                defer { offset = min(offset + size, bytes.count) }
                return Data(bytes[offset..<min(offset + size, bytes.count)])
            }
            #expect(count == commits.count, "chunks of \(size)")
            #expect(Self.bytes(try JournalFixtures.readAll(target)) == Self.bytes(commits), "chunks of \(size)")
        }
    }

    @Test func aRangeExportsThoseCommitsOnly() throws {
        let journal = Journal.inMemory()
        for commit in RandomHistory.commits(seed: 33, count: 20) { try journal.append(commit) }
        var lines: [String] = []
        try journal.exportJSONLines(from: 5, through: 9) { lines.append($0) }
        #expect(try lines.map { try JSONLines.decode($0).version } == [5, 6, 7, 8, 9])
        #expect(lines.allSatisfy { $0.hasSuffix("\n") })
    }

    static let malformed: [String] = [
        "", "{", "[]", "null", "{\"version\":1}", "{\"version\":0,\"timestamp\":0,\"metadata\":{},\"events\":[]}",
        "{\"version\":-1,\"timestamp\":0,\"metadata\":{},\"events\":[]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[],\"extra\":1}",
        "{\"version\":1,\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[]}",
        "{\"version\":1,\"timestamp\":1e999,\"metadata\":{},\"events\":[]}",
        "{\"version\":1,\"timestamp\":\"0x123\",\"metadata\":{},\"events\":[]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{\"a\":1},\"events\":[]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"set\":{\"table\":-1,\"key\":1,\"property\":0,\"value\":1}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"set\":{\"table\":0,\"key\":1,\"property\":0,\"value\":[1]}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"set\":{\"table\":0,\"key\":1,\"property\":0,\"value\":1.5}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"set\":{\"table\":0,\"key\":99999999999999999999,\"property\":0,\"value\":1}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"set\":{\"table\":0,\"key\":1,\"property\":0,\"value\":{\"list\":[{\"list\":[{\"list\":[]}]}]}}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"frobnicate\":{}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"set\":{\"table\":0,\"key\":1,\"property\":0,\"value\":{\"uuid\":\"nope\"}}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"set\":{\"table\":0,\"key\":1,\"property\":0,\"value\":{\"decimal\":\"1e5x\"}}}]}",
        "{\"version\":1,\"timestamp\":0,\"metadata\":{},\"events\":[{\"defineType\":{\"name\":\"A\",\"embedded\":false,\"properties\":[{\"name\":\"x\",\"type\":\"int128\",\"collection\":\"none\",\"optional\":false,\"primaryKey\":false,\"indexed\":false}]}}]}",
        "{\"version\":1,\"timestamp\":0,\"label\":\"\\ud800\",\"metadata\":{},\"events\":[]}",
        "{\"version\":1,\"timestamp\":0,\"label\":\"\u{1}\",\"metadata\":{},\"events\":[]}",
        String(repeating: "[", count: 10_000),
    ]

    @Test func malformedLinesAreTypedErrorsNamingTheLine() throws {
        for (index, line) in Self.malformed.enumerated() {
            #expect(throws: JSONLinesError.self, "case \(index): \(line.prefix(80))") { try JSONLines.decode(line, lineNumber: index + 1) }
            do {
                _ = try JSONLines.decode(line, lineNumber: 7)
            } catch {
                switch error {
                case .syntax(let number, _, _), .invalidCommit(let number, _, _): #expect(number == 7)
                default: Issue.record("unexpected \(error)")
                }
            }
        }
        // A version that does not follow is the journal's error, with the line.
        let url = try JournalFixtures.temporaryDirectory().appendingPathComponent("gap.jsonl")
        try Data((JSONLines.encode(Commit(version: 2, timestamp: Date(), events: [])) + "\n").utf8).write(to: url)
        #expect(throws: JSONLinesError.journal(line: 1, .versionMismatch(expected: 1, found: 2))) {
            try Journal.inMemory().importJSONLines(from: url)
        }
    }

    @Test func mutatedLinesNeverCrashTheDecoderOrTheJournal() throws {
        var rng = SplitMix64(seed: 34)
        let lines = Self.awkwardCommits().map(JSONLines.encode) + RandomHistory.commits(seed: 35, count: 30).map(JSONLines.encode)
        let alphabet = Array("{}[]\",:0123456789-.eE\\u/ntfal \u{0}x".utf8)
        var decoded = 0
        for _ in 0..<3_000 {
            var bytes = Array(lines.randomElement(using: &rng)!.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: bytes[position] = alphabet.randomElement(using: &rng)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet.randomElement(using: &rng)!, at: position)
                }
            }
            guard let commit = try? JSONLines.decode(bytes, lineNumber: 1) else { continue }
            decoded += 1
            // Whatever decodes can be appended and read back.
            let journal = Journal.inMemory()
            var renumbered = commit
            renumbered.version = 1
            try journal.append(renumbered)
            #expect(try JournalFixtures.readAll(journal).count == 1)
        }
        #expect(decoded > 0)
    }
}
