import Chronicle
import ChronicleTesting
import Foundation
import Testing

@Suite("Deterministic journals")
struct DeterminismTests {
    /// A scenario with every kind of generated value: ObjectId and UUID
    /// defaults, `ObjectId.generate()`, links, collections and timestamps.
    static func scenario(_ store: Store) throws {
        let ann = contact("Ann", age: 30)
        ann.home = Place()
        ann.home?.city = "Oslo"
        ann.pets.append(Pet())
        ann.tags.insert("friend")
        ann.scores["chess"] = 1200
        try store.write(label: "add Ann") { store.add(ann) }
        try store.write(metadata: ["id": ObjectId.generate().description]) {
            ann.name = "Anne"
            ann.pets.append(Pet())
        }
        try store.write { store.delete(ann.pets[0]) }
    }

    /// Runs the scenario into a new journal file with a seeded clock and identifiers.
    static func fileJournal(seed: UInt64) throws -> Data {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("determinism-\(UUID().uuidString).journal")
        defer { try? FileManager.default.removeItem(at: url) }
        let clock = TestClock()
        let ids = SeededIdentifiers(seed: seed)
        try IdentifierGeneration.withUUIDGenerator(ids.nextUUID) {
            try IdentifierGeneration.withObjectIdGenerator(ids.nextObjectId) {
                let store = try Store(configuration: .init(fileURL: url, durability: .none, clock: clock.timestamp))
                try scenario(store)
                try store.close()
            }
        }
        return try Data(contentsOf: url)
    }

    /// Runs the scenario into a fresh store and exports it as JSON Lines.
    static func jsonLines(seed: UInt64) throws -> String {
        try withFreshStore(seed: seed) { store in
            try scenario(store)
            var lines = ""
            try store.journalForReading.exportJSONLines { lines += $0 }
            return lines
        }
    }

    @Test func twoRunsOfASeededScenarioWriteByteIdenticalJournalFiles() throws {
        let first = try Self.fileJournal(seed: 7)
        let second = try Self.fileJournal(seed: 7)
        #expect(first.count > 100)
        #expect(first == second)
        #expect(try Self.fileJournal(seed: 8) != first, "another seed, other identifiers")
    }

    @Test func twoRunsOfASeededFreshStoreExportIdenticalJSONLines() throws {
        let first = try Self.jsonLines(seed: 7)
        #expect(first == (try Self.jsonLines(seed: 7)))
        #expect(first != (try Self.jsonLines(seed: 8)))
    }

    @Test func seededSequencesAreFixed() {
        let ids = SeededIdentifiers(seed: 1)
        let uuid = ids.nextUUID()
        #expect(uuid == SeededIdentifiers(seed: 1).nextUUID())
        #expect(uuid.uuidString.dropFirst(14).first == "4", "a version-4 UUID")
        let a = ids.nextObjectId(), b = ids.nextObjectId()
        #expect(a < b, "ObjectIds sort in creation order")
        #expect(a.timestamp == TestClock.defaultStart)
    }

    @Test func theTestClockAdvancesAFixedStepPerTimestamp() async {
        let clock = TestClock(start: Date(timeIntervalSince1970: 100), step: .seconds(2))
        #expect(clock.timestamp() == Date(timeIntervalSince1970: 100))
        #expect(clock.timestamp() == Date(timeIntervalSince1970: 102))
        await clock.advance(by: .seconds(60))
        #expect(clock.date == Date(timeIntervalSince1970: 164), "reading does not move the clock")
        #expect(clock.timestamp() == Date(timeIntervalSince1970: 164))
    }
}
