import Foundation
import Testing
@testable import Chronicle

@Suite("Journal: append and read back")
struct JournalRoundTripTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible {
        case file, memory
        var testDescription: String { rawValue }
    }

    /// Appends `commits` to a new journal of `kind`; returns a journal to read
    /// them from (the file journal reopened, so the bytes really came from disk).
    func roundTrip(_ commits: [Commit], kind: Kind, durability: Durability = .none) throws -> Journal {
        switch kind {
        case .memory:
            let journal = Journal.inMemory(durability: durability)
            for commit in commits { try journal.append(commit) }
            return journal
        case .file:
            let url = try JournalFixtures.journalURL()
            do {
                let journal = try Journal(fileURL: url, durability: durability)
                for commit in commits { try journal.append(commit) }
                try journal.close()
            }
            return try Journal(fileURL: url)
        }
    }

    @Test(arguments: Kind.allCases)
    func emptyCommitsRoundTrip(kind: Kind) throws {
        let commits = (1...3).map { Commit(version: $0, timestamp: Date(timeIntervalSinceReferenceDate: 0), events: []) }
        let journal = try roundTrip(commits, kind: kind)
        #expect(journal.lastVersion == 3)
        #expect(try JournalFixtures.readAll(journal) == commits)
    }

    @Test(arguments: Kind.allCases)
    func largeCommitsRoundTrip(kind: Kind) throws {
        let commits = [
            JournalFixtures.commit(1, payload: 10),
            JournalFixtures.commit(2, payload: 1_500_000),
            JournalFixtures.commit(3, payload: 300_000, events: 5),
            JournalFixtures.commit(4, payload: 3),
        ]
        let journal = try roundTrip(commits, kind: kind, durability: .full)
        #expect(try JournalFixtures.readAll(journal) == commits)
        #expect(Array(journal.commits(from: 3)) == Array(commits[2...]))
    }

    @Test(arguments: Kind.allCases)
    func tenThousandSmallCommitsRoundTrip(kind: Kind) throws {
        let commits = (1...10_000).map { JournalFixtures.commit(UInt64($0), payload: Int($0 % 40)) }
        let journal = try roundTrip(commits, kind: kind)
        #expect(journal.lastVersion == 10_000)
        #expect(Array(journal.commits()) == commits)
        #expect(try JournalFixtures.readAll(journal, from: 9_990) == Array(commits[9_989...]))
        #expect(journal.commits(from: 10_001).underestimatedCount == 0)
        #expect(Array(journal.commits(from: 10_001)).isEmpty)
    }

    @Test func readOnlyOpenReadsWithoutLockingAndRefusesAppends() throws {
        let url = try JournalFixtures.journalURL()
        let writer = try Journal(fileURL: url)
        for version in 1...5 { try writer.append(JournalFixtures.commit(UInt64(version))) }
        let reader = try Journal(contentsOf: url)
        #expect(reader.isReadOnly)
        #expect(reader.fileIdentifier == writer.fileIdentifier)
        #expect(Array(reader.commits()).map(\.version) == [1, 2, 3, 4, 5])
        let error = JournalFixtures.journalError { try reader.append(JournalFixtures.commit(6)) }
        #expect(error == .readOnly(url))
        try writer.append(JournalFixtures.commit(6))  // the reader took no lock
    }

    @Test func asyncCommitsYieldEveryCommitInOrder() async throws {
        let journal = Journal.inMemory()
        let commits = (1...50).map { JournalFixtures.commit(UInt64($0)) }
        for commit in commits { try journal.append(commit) }
        var seen: [Commit] = []
        for try await commit in journal.asyncCommits(from: 11) { seen.append(commit) }
        #expect(seen == Array(commits[10...]))
    }

    @Test func versionsMustFollowWithoutGaps() throws {
        let journal = Journal.inMemory()
        try journal.append(JournalFixtures.commit(1))
        #expect(JournalFixtures.journalError { try journal.append(JournalFixtures.commit(3)) } == .versionMismatch(expected: 2, found: 3))
        #expect(JournalFixtures.journalError { try journal.append(JournalFixtures.commit(1)) } == .versionMismatch(expected: 2, found: 1))
        try journal.append(JournalFixtures.commit(2))  // a mismatch does not fail the journal
        #expect(journal.lastVersion == 2)
        #expect(journal.failure == nil)
    }

    @Test func closedJournalRefusesAppendsAndNewReaders() throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url, durability: .batched(maxDelay: .seconds(60), maxCommits: 1000))
        try journal.append(JournalFixtures.commit(1))
        var early = journal.reader()
        try journal.close()
        try journal.close()
        #expect(JournalFixtures.journalError { try journal.append(JournalFixtures.commit(2)) } == .closed)
        var late = journal.reader()
        #expect(JournalFixtures.journalError { try late.next() } == .closed)
        #expect(try early.next()?.version == 1)
        // Closing synced the batch and released the lock.
        let reopened = try Journal(fileURL: url)
        #expect(reopened.lastVersion == 1)
    }

    @Test func newJournalFileIsPrivateAndStartsWithTheHeader() throws {
        let url = try JournalFixtures.journalURL()
        _ = try Journal(fileURL: url)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let bytes = try JournalFixtures.bytes(url)
        #expect(bytes.count == JournalFormat.headerSize)
        #expect(Array(bytes.prefix(8)) == Array("CHRNCLJ\0".utf8))
        // No temporary file is left behind.
        let siblings = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(siblings == ["test.journal"])
    }
}

/// A store's write encodes its commit's events as it applies them and
/// writes that record as it is; it must be, byte for byte, the record the
/// codec makes of the commit read back.
@Suite("Journal: a store's records")
struct StoreRecordEncodingTests {
    @Test func aStoresRecordsAreTheCodecsEncodingOfTheirCommits() throws {
        let url = try JournalFixtures.journalURL()
        var configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: GoldenFixtures.types,
                                                clock: GoldenFixtures.clock())
        configuration.checkpoints.fileThreshold = .max
        do {
            let store = try Store(configuration: configuration)
            try GoldenFixtures.writeHistory(store)
            // A long label and several metadata entries, some not ASCII: the
            // room left for the header is sized from them.
            let label = String(repeating: "étiquette ", count: 40)
            let metadata = ["by": "tests", "ζ": String(repeating: "x", count: 300), "empty": "", "where": "Zürich"]
            try store.write(label: label, metadata: metadata) {
                store.object(ofType: GoldenOwner.self, forPrimaryKey: 2)!.name = "Robert"
            }
            try store.write {}  // no change: no commit
            #expect(store.version == 6)
            try store.close()
        }
        let bytes = try JournalFixtures.bytes(url)
        let journal = try Journal(contentsOf: url)
        let (offsets, end) = journal.core.state.withLock { ($0.offsets, $0.end) }
        let commits = try JournalFixtures.readAll(journal)
        try #require(commits.count == 6 && offsets.count == 6)
        for (index, commit) in commits.enumerated() {
            let stored = Array(bytes[offsets[index]..<(index + 1 < offsets.count ? offsets[index + 1] : end)])
            #expect(stored == (try JournalFormat.encodeRecord(commit)), "version \(commit.version)")
        }
        #expect(commits.last?.label == String(repeating: "étiquette ", count: 40))
        #expect(commits.last?.metadata["ζ"]?.count == 300)
    }
}
