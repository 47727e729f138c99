import Foundation
import Testing
@testable import Chronicle

/// Seed corpora for the fuzz targets (Fuzz/Targets), made from real journals,
/// and the regression inputs fuzzing found.
///
/// `CHRONICLE_WRITE_FUZZ_SEEDS=1 swift test --filter FuzzSeedTests` rewrites
/// the `seed-*` files of `Fuzz/corpus/journal`, `codec`, `jsonl-import` and
/// `cli-args` (what `scripts/fuzz-seeds` does); the other tests check that the
/// committed seeds are still what they were made as, so a format change cannot
/// quietly leave the fuzzers seeded with files the reader now rejects at the
/// header.
@Suite("Fuzzing: seeds and regressions")
struct FuzzSeedTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus")

    /// Journals written through a Store and through the bare journal API,
    /// covering every event and value kind the model can produce.
    static func seedJournals() throws -> [String: [UInt8]] {
        var seeds: [String: [UInt8]] = [:]
        let directory = try JournalFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        let storeURL = directory.appendingPathComponent("store.journal")
        do {
            let store = try Store(configuration: .init(fileURL: storeURL, durability: .none,
                                                       clock: { Date(timeIntervalSinceReferenceDate: 1000) }))
            let all = AllTypes()
            all.id = 7
            all.string = "héllo"
            all.data = Data([0, 1, 2, 255])
            all.decimal = Decimal(string: "12.5")!
            all.optInt = 3
            all.optString = "x"
            all.tags.insert("a")
            all.scores["k"] = 4
            all.numbers.append(contentsOf: [1, 2, 3])
            try store.write(label: "all types", metadata: ["by": "seed"]) { store.add(all) }
            try store.write {
                all.numbers.move(from: 0, to: 2)
                all.numbers.remove(at: 1)
                all.numbers[0] = 9
                all.tags.remove("a")
                all.scores["k"] = nil
                all.double = .nan
            }
            let a = Person(), b = Person()
            a.firstName = "A"
            a.address = Address()
            a.address?.city = "Oslo"
            b.firstName = "B"
            a.friends.append(b)
            b.friends.append(a)
            try store.write { store.add(a) }
            let dog = Dog()
            dog.name = "Rex"
            let employee = Employee()
            employee.dogs.append(dog)
            try store.write { store.add(employee) }
            try store.write { store.delete(b) }
            try store.write { all.numbers.removeAll() }
            try store.journal.close()
        }
        let store = try JournalFixtures.bytes(storeURL)
        seeds["store.journal"] = store

        // A torn tail: the last record cut in half.
        let journal = try Journal(bytes: store)
        let offsets = journal.core.state.withLock { $0.offsets }
        let last = offsets.last!
        seeds["store-torn.journal"] = Array(store[..<(last + (store.count - last) / 2)])
        seeds["empty.journal"] = JournalFormat.makeHeader(fileID: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))

        let plainURL = directory.appendingPathComponent("plain.journal")
        do {
            let plain = try Journal(fileURL: plainURL, durability: .none)
            for version in 1...6 { try plain.append(JournalFixtures.commit(UInt64(version), payload: 8, events: Int(version % 3) + 1)) }
            try plain.close()
        }
        seeds["plain.journal"] = try JournalFixtures.bytes(plainURL)
        return seeds
    }

    /// The record payloads (encoded commits) of `journal`.
    static func payloads(_ journal: [UInt8]) throws -> [[UInt8]] {
        let opened = try Journal(bytes: journal)
        return try JournalFixtures.readAll(opened).map { EventCodec.encode($0) }
    }

    /// JSON Lines inputs: the seed journals and the awkward values of
    /// ReplayJSONLinesTests exported, and each malformed line of that suite.
    static func seedJSONLines() throws -> [String: [UInt8]] {
        var seeds: [String: [UInt8]] = [:]
        for (name, bytes) in try seedJournals() {
            var text = ""
            try Journal(bytes: bytes).exportJSONLines { text += $0 }
            seeds[name.replacingOccurrences(of: ".journal", with: ".jsonl")] = Array(text.utf8)
        }
        let awkward = Journal.inMemory(durability: .none)
        for commit in ReplayJSONLinesTests.awkwardCommits() { try awkward.append(commit) }
        var text = ""
        try awkward.exportJSONLines { text += $0 }
        seeds["awkward.jsonl"] = Array(text.utf8)
        for (index, line) in ReplayJSONLinesTests.malformed.enumerated() where !line.isEmpty {
            seeds["malformed-\(index).jsonl"] = Array((line + "\n").utf8)
        }
        return seeds
    }

    /// Command lines for the cli-args target: every one the CLI tests run,
    /// with the journal's path as `cli.journal`.
    static let seedCommandLines: [[String]] = [
        ["log", "cli.journal"], ["log", "cli.journal", "--type", "Counter", "--from", "5"],
        ["log", "cli.journal", "--type", "Address", "--to", "3"], ["show", "cli.journal", "3"],
        ["state", "cli.journal"], ["state", "cli.journal", "--at", "2", "--type", "Person"], ["state", "cli.journal", "--json"],
        ["history", "cli.journal", "Person", "#1"], ["history", "cli.journal", "Person", "#1", "address.city"],
        ["history", "cli.journal", "Counter", "7", "value"], ["diff", "cli.journal", "1", "6"], ["verify", "cli.journal"],
        ["stats", "cli.journal"], ["export", "cli.journal", "--jsonl", "--from", "5"], ["import", "all.jsonl", "copy.journal"],
        ["--help"], ["-h"], ["help"], ["log", "--help"], ["export", "-h"],
        [], ["frobnicate"], ["log"], ["log", "cli.journal", "--from"], ["log", "cli.journal", "--from", "x"],
        ["log", "cli.journal", "--bogus"], ["show", "cli.journal"], ["show", "cli.journal", "99"], ["show", "cli.journal", "zero"],
        ["state", "cli.journal", "--at", "7"], ["history", "cli.journal", "Person"], ["history", "cli.journal", "Person", "#x"],
        ["diff", "cli.journal", "1"], ["export", "cli.journal"], ["log", "cli.journal", "extra"],
    ]

    @Test func seedJournalsOpenFoldAndRoundTrip() throws {
        let seeds = try Self.seedJournals()
        #expect(seeds.count == 4)
        for (name, bytes) in seeds.sorted(by: { $0.key < $1.key }) {
            let journal = try Journal(bytes: bytes)
            // The bare-journal seed has no schema: it reads, but only store journals fold.
            if name != "plain.journal" {
                let state = try Store.fold(journal)
                #expect(state._invariantViolations().isEmpty, "\(name)")
            }
            for payload in try Self.payloads(bytes) {
                #expect(EventCodec.encode(try EventCodec.decodeCommit(payload)) == payload, "\(name)")
            }
        }
        #expect(try Journal(bytes: seeds["store-torn.journal"]!).discardedTailBytes > 0)

        guard ProcessInfo.processInfo.environment["CHRONICLE_WRITE_FUZZ_SEEDS"] == "1" else { return }
        let fm = FileManager.default
        for target in ["journal", "codec", "jsonl-import", "cli-args"] {
            let directory = Self.corpus.appendingPathComponent(target)
            try fm.createDirectory(at: directory, withIntermediateDirectories: true)
            for file in try fm.contentsOfDirectory(atPath: directory.path) where file.hasPrefix("seed-") {
                try fm.removeItem(at: directory.appendingPathComponent(file))
            }
        }
        for (name, bytes) in seeds {
            try JournalFixtures.write(bytes, to: Self.corpus.appendingPathComponent("journal/seed-\(name)"))
        }
        var index = 0
        for name in seeds.keys.sorted() {
            for payload in try Self.payloads(seeds[name]!) {
                index += 1
                try JournalFixtures.write(payload, to: Self.corpus.appendingPathComponent("codec/seed-\(index).commit"))
            }
        }
        for (name, bytes) in try Self.seedJSONLines() {
            try JournalFixtures.write(bytes, to: Self.corpus.appendingPathComponent("jsonl-import/seed-\(name)"))
        }
        for (index, words) in Self.seedCommandLines.enumerated() {
            let bytes = Array(words.joined(separator: "\u{0}").utf8)
            try JournalFixtures.write(bytes, to: Self.corpus.appendingPathComponent("cli-args/seed-\(index + 1).args"))
        }
    }

    /// The `checkpoint` target's input: the journal's length (UInt32,
    /// little-endian), the journal, then a checkpoint file of it.
    static func checkpointInput(journal: [UInt8], checkpoint: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: UInt32(journal.count).littleEndian) { Array($0) } + journal + checkpoint
    }

    /// The `checkpoint` target's seeds: each committed journal seed with a
    /// checkpoint of its folded state, which decodes to a state that keeps
    /// the invariants. `CHRONICLE_WRITE_FUZZ_SEEDS=1` rewrites them (from the
    /// committed journal seeds, so they change only when those do).
    @Test func checkpointSeedsAreCheckpointsOfTheJournalSeeds() throws {
        let directory = Self.corpus.appendingPathComponent("checkpoint")
        let writing = ProcessInfo.processInfo.environment["CHRONICLE_WRITE_FUZZ_SEEDS"] == "1"
        var made = 0
        for name in ["store.journal", "store-torn.journal"] {
            let journalBytes = try JournalFixtures.bytes(Self.corpus.appendingPathComponent("journal/seed-\(name)"))
            let journal = try Journal(bytes: journalBytes)
            let state = try Store.fold(journal)
            guard state.version > 0 else { continue }
            let checkpoint = try CheckpointFile.encode(state, journal: journal)
            guard case .success(let restored) = CheckpointFile.decode(checkpoint, journal: journal) else {
                Issue.record("the checkpoint of \(name) was rejected: \(CheckpointFile.decode(checkpoint, journal: journal))")
                continue
            }
            #expect(restored._invariantViolations().isEmpty, "\(name)")
            let url = directory.appendingPathComponent("seed-\(name).checkpoint")
            let input = Self.checkpointInput(journal: journalBytes, checkpoint: checkpoint)
            if writing {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try JournalFixtures.write(input, to: url)
            }
            #expect(try JournalFixtures.bytes(url) == input, "seed-\(name).checkpoint is stale: run scripts/fuzz-seeds")
            made += 1
        }
        #expect(made == 2)
    }

    /// The committed JSON Lines inputs: the exports import and export again
    /// to the same text, the malformed lines (and any regression input) are
    /// JSONLinesErrors or imports.
    @Test func committedJSONLinesCorpusIsHandled() throws {
        let directory = Self.corpus.appendingPathComponent("jsonl-import")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files.contains { $0.hasPrefix("seed-") })
        for file in files {
            let url = directory.appendingPathComponent(file)
            let journal = Journal.inMemory(durability: .none)
            if file.hasPrefix("seed-malformed-") {
                #expect(throws: JSONLinesError.self, "\(file)") { try journal.importJSONLines(from: url) }
            } else if file.hasPrefix("seed-") {
                let count = try journal.importJSONLines(from: url)
                #expect(UInt64(count) == journal.lastVersion, "\(file)")
                var text = ""
                try journal.exportJSONLines { text += $0 }
                #expect(Array(text.utf8) == (try JournalFixtures.bytes(url)), "\(file)")
            } else {
                _ = try? journal.importJSONLines(from: url)
                #expect(try JournalFixtures.readAll(journal).count == Int(journal.lastVersion), "\(file)")
            }
        }
    }

    /// Every committed input of both corpora is handled without a crash: the
    /// journal seeds open (none is rejected at the header), the codec inputs
    /// decode or throw `Malformed`.
    @Test func committedCorporaAreHandled() throws {
        let fm = FileManager.default
        let journals = try fm.contentsOfDirectory(atPath: Self.corpus.appendingPathComponent("journal").path)
        #expect(journals.contains { $0.hasPrefix("seed-") })
        for file in journals {
            let bytes = try JournalFixtures.bytes(Self.corpus.appendingPathComponent("journal/\(file)"))
            if file.hasPrefix("seed-") {
                let journal = try Journal(bytes: bytes)
                #expect(try JournalFixtures.readAll(journal).count == Int(journal.lastVersion))
            } else {
                _ = try? Journal(bytes: bytes)
            }
        }
        let payloads = try fm.contentsOfDirectory(atPath: Self.corpus.appendingPathComponent("codec").path)
        #expect(payloads.contains { $0.hasPrefix("seed-") })
        for file in payloads {
            let bytes = try JournalFixtures.bytes(Self.corpus.appendingPathComponent("codec/\(file)"))
            if file.hasPrefix("seed-") {
                _ = try EventCodec.decodeCommit(bytes)
            } else if let commit = try? EventCodec.decodeCommit(bytes) {
                // What the codec fuzz target checks: the fold keeps its invariants.
                var start = StoreState()
                start.version = commit.version &- 1
                if let folded = try? start.applying(commit) {
                    #expect(folded.state._invariantViolations().isEmpty, "\(file)")
                }
            }
        }
    }

    // MARK: Regressions

    /// Found by the jsonl-import target (Fuzz/corpus/jsonl-import/regression-metadata-error-order.jsonl):
    /// a line whose metadata had several bad members was reported with
    /// whichever one a dictionary happened to list first, which differs from
    /// one decode of the same line to the next (each dictionary has its own
    /// order), so the same file could fail with different messages. The
    /// error now names the first bad member in the line's order.
    @Test func malformedMetadataIsReportedAtItsFirstBadMemberEveryTime() throws {
        let members = (0..<12).map { "\"m\($0)\":\($0)" }.joined(separator: ",")
        let line = "{\"version\":1,\"timestamp\":0,\"metadata\":{\"ok\":\"x\",\(members)},\"events\":[]}"
        for _ in 0..<20 {
            #expect(throws: JSONLinesError.invalidCommit(line: 3, path: "metadata.m0", reason: "expected a string")) {
                try JSONLines.decode(line, lineNumber: 3)
            }
        }
        // The input the fuzzer found: importing it whole and in chunks fails the same way.
        let url = Self.corpus.appendingPathComponent("jsonl-import/regression-metadata-error-order.jsonl")
        let bytes = try JournalFixtures.bytes(url)
        var errors: [JSONLinesError] = []
        for size in [bytes.count, 44, 7] {
            var offset = 0
            do {
                _ = try Journal.inMemory(durability: .none).importJSONLines { () -> Data? in
                    guard offset < bytes.count else { return nil }
                    defer { offset = min(offset + size, bytes.count) }
                    return Data(bytes[offset..<min(offset + size, bytes.count)])
                }
                Issue.record("chunks of \(size): imported")
            } catch {
                errors.append(error)
            }
        }
        #expect(errors.count == 3 && Set(errors).count == 1, "\(errors)")
        #expect(errors.first == .invalidCommit(line: 1, path: "metadata.imaryKey", reason: "expected a string"))
    }

    /// Found by the checkpoint target (Fuzz/corpus/checkpoint/regression-foreign-schema-recovery.checkpoint):
    /// a crafted checkpoint, read lazily, whose table failed its build and
    /// whose type is not the journal's, so the journal could not rebuild it;
    /// recovery stopped the program. Now the table is rebuilt empty, with
    /// its next key, and every read keeps the invariants.
    @Test func aLazyTableWhoseTypeIsNotTheJournalsIsRebuiltEmpty() throws {
        let input = try JournalFixtures.bytes(Self.corpus.appendingPathComponent("checkpoint/regression-foreign-schema-recovery.checkpoint"))
        let length = Int(input[0]) | Int(input[1]) << 8 | Int(input[2]) << 16 | Int(input[3]) << 24
        let journal = try Journal(bytes: Array(input[4..<(4 + length)]))
        _ = try Store.fold(journal)
        let checkpoint = CheckpointLayout.resealed(Array(input[(4 + length)...]))
        let lazy = try CheckpointFile.decode(MappedFile(copying: checkpoint), journal: journal, deferringFrom: 1).get()
        var rebuilt = 0
        for table in lazy.schema.indices {
            for key in 0..<min(lazy.nextKey(table: table).rawValue, 300) { _ = lazy.object(table: table, key: ObjectKey(key)) }
            if let deferred = lazy.tables[table].deferred {
                _ = deferred.built()
                rebuilt += lazy.count(table: table) == 0 ? 1 : 0
            }
        }
        #expect(rebuilt > 0)
        #expect(lazy._invariantViolations() == [])
    }

    /// Found by the codec target (Fuzz/corpus/codec/regression-nan-in-indexed-date.commit):
    /// an indexed property holding NaN. IEEE equality made the NaN entry
    /// impossible to find, so the secondary index kept a stale entry after the
    /// value changed or the object was deleted. Likewise a set of doubles
    /// could not remove a NaN.
    @Test func nanValuesInIndexesAndSetsAreFoundAgain() throws {
        let type = TypeSchema(name: "Sample", isEmbedded: false, properties: [
            PropertySchema(name: "score", type: .double, objectType: nil, collection: .none,
                           isOptional: false, isPrimaryKey: false, isIndexed: true),
            PropertySchema(name: "when", type: .date, objectType: nil, collection: .none,
                           isOptional: false, isPrimaryKey: false, isIndexed: true),
            PropertySchema(name: "bag", type: .double, objectType: nil, collection: .set,
                           isOptional: false, isPrimaryKey: false, isIndexed: false),
        ])
        let key = ObjectKey(0)
        let nanDate = Date(timeIntervalSinceReferenceDate: .nan)
        let steps: [[Event]] = [
            [.defineType(type), .create(table: 0, key: key, values: [.double(.nan), .date(nanDate), .set([])])],
            [.setInsert(table: 0, key: key, property: 2, value: .double(.nan)),
             .setInsert(table: 0, key: key, property: 2, value: .double(-.nan))],
            [.set(table: 0, key: key, property: 0, value: .double(1)),
             .setRemove(table: 0, key: key, property: 2, value: .double(.nan))],
            [.set(table: 0, key: key, property: 0, value: .double(.nan))],
            [.delete(table: 0, key: key)],
        ]
        var state = StoreState()
        for (index, events) in steps.enumerated() {
            state = try state.applying(Commit(version: UInt64(index + 1), timestamp: Date(timeIntervalSinceReferenceDate: 0),
                                              label: nil, events: events)).state
            #expect(state._invariantViolations().isEmpty, "after step \(index + 1)")
            if index == 1 {
                #expect(state.object(table: 0, key: key)?.values[2] == .set([.double(.nan)]), "a set holds one NaN")
            }
            if index == 2 {
                #expect(state.object(table: 0, key: key)?.values[2] == .set([]), "the NaN was removed")
                #expect(state.keys(table: 0, property: 0, equalTo: .double(.nan)) ?? [] == [])
            }
        }
        #expect(PersistedValue.double(.nan) == .double(-.nan))
        #expect(PersistedValue.double(.nan).hashValue == PersistedValue.double(-.nan).hashValue)
        #expect(PersistedValue.double(0) == .double(-0.0))
        #expect(PersistedValue.double(1) != .double(.nan))
    }
}
