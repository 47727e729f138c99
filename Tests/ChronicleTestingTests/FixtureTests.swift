import Chronicle
import ChronicleTesting
import Foundation
import Testing

/// The scenario of the `bank` fixtures: three entries, one corrected.
enum BankScenario {
    static func run(_ store: Store) throws {
        let ledger = Ledger(store: store)
        try ledger.book(1200, memo: "salary")
        let rent = try ledger.book(-700, memo: "rent")
        try ledger.book(-45, memo: "groceries")
        try store.write(label: "correct rent") { rent.amount = -750 }
    }

    /// The scenario's journal as JSON Lines, from a fresh store.
    static func jsonLines() throws -> String {
        try withFreshStore { store in
            try run(store)
            var lines = ""
            try store.journalForReading.exportJSONLines { lines += $0 }
            return lines
        }
    }
}

@Suite("Fixtures")
struct FixtureTests {
    @Test(.freshStore(journal: "bank.jsonl", bundle: .module))
    func aTestStartsFromAJSONLinesFixtureInItsBundle() throws {
        let store = TestStore.current
        let entries = store.objects(Entry.self).sorted(by: \.amount).map(\.memo)
        #expect(entries == ["rent", "groceries", "salary"])
        #expect(store.version == 4)
    }

    @Test(.freshStore(journal: "bank.journal", bundle: .module))
    func aBinaryFixtureToo() {
        #expect(TestStore.current.objects(Entry.self).count == 3)
    }

    @Test(.freshStore(journal: "bank.jsonl"))
    func withoutABundleTheFixturesFolderNextToTheTestFileIsRead() {
        #expect(TestStore.current.objects(Entry.self).count == 3)
    }

    @Test(.freshStore(journal: "bank.jsonl", bundle: .module))
    func newCommitsFollowTheRecordedOnesWithNewIdentifiers() throws {
        let store = TestStore.current
        let recorded = Array(store.journalForReading.commits())
        try Ledger(store: store).book(10, memo: "interest")   // a colliding ObjectId would throw
        let added = try #require(Array(store.journalForReading.commits()).last)
        #expect(added.timestamp == recorded.last!.timestamp.addingTimeInterval(1))
        #expect(Set(store.objects(Entry.self).map(\._id)).count == 4)
        #expect(TestStore.clock.start == added.timestamp)
    }

    @Test func theFixturesAreWhatTheScenarioRecords() throws {
        let directory = Bundle.module.url(forResource: "Fixtures", withExtension: nil)
        let committed = try String(contentsOf: try #require(directory).appendingPathComponent("bank.jsonl"), encoding: .utf8)
        let recorded = try BankScenario.jsonLines()
        #expect(committed == recorded, "re-record with recordFixture after changing the scenario")
    }

    @Test func recordingAFixtureIsOneLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fixtures-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let testFile = directory.appendingPathComponent("BankTests.swift").path
        let (jsonLines, binary, expected) = try withFreshStore { store in
            try BankScenario.run(store)
            return (try store.recordFixture("bank.jsonl", filePath: testFile),
                    try store.recordFixture("bank.journal", filePath: testFile),
                    try store.journalForReading.eventDescriptions())
        }
        #expect(jsonLines.path == directory.appendingPathComponent("Fixtures/bank.jsonl").path)
        let imported = Journal.inMemory()
        try imported.importJSONLines(from: jsonLines)
        let fromJSONLines = try imported.eventDescriptions()
        let fromBinary = try Journal(contentsOf: binary).eventDescriptions()
        #expect(fromJSONLines == expected)
        #expect(fromBinary == expected)
    }

    @Test func aMissingFixtureFailsTheTestNamingTheFileAndTheFix() async throws {
        let test = try #require(Test.current)
        let trait: FreshStoreTrait = .freshStore(journal: "nope.jsonl", bundle: .module)
        let error = await #expect(throws: FixtureError.self) {
            try await trait.provideScope(for: test, testCase: nil) {}
        }
        let description = try #require(error).description
        #expect(description.hasPrefix("ChronicleTesting: no fixture journal nope.jsonl in the bundle "))
        #expect(description.hasSuffix(#"add it to the test target's resources (resources: [.copy("Fixtures")]) or record it with store.recordFixture("nope.jsonl")"#))
    }

    /// Writes the fixtures; run with CHRONICLE_RECORD_FIXTURES=1 after changing the scenario.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CHRONICLE_RECORD_FIXTURES"] == "1"))
    func recordTheBankFixtures() throws {
        try withFreshStore { store in
            try BankScenario.run(store)
            try store.recordFixture("bank.jsonl")
            try store.recordFixture("bank.journal")
        }
    }
}
