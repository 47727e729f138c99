import Foundation
import Testing
@testable import Chronicle

@Suite("Replay: checkpoints")
struct ReplayCheckpointTests {
    static func policy() -> Store.CheckpointPolicy { .init(interval: 32, usesFile: true, fileThreshold: 0) }

    static func rejection(_ result: Result<StoreState, CheckpointFile.Rejection>) -> CheckpointFile.Rejection? {
        if case .failure(let rejection) = result { rejection } else { nil }
    }

    static func open(_ url: URL) throws -> Store {
        var configuration = Store.Configuration(fileURL: url, durability: .none)
        configuration.checkpoints = policy()
        return try Store(configuration: configuration)
    }

    @Test func openingWritesACheckpointFileAndTheNextOpenStartsFromIt() throws {
        let commits = RandomHistory.commits(seed: 3, count: 120)
        let url = try ReplayFixtures.journal(commits)
        let expected = try ReplayFixtures.prefixStates(commits).last!
        let status = try Self.open(url).checkpoints.fileStatus
        #expect(status == .written(version: 121))
        #expect(FileManager.default.fileExists(atPath: CheckpointFile.url(for: url).path))
        do {
            let store = try Self.open(url)
            #expect(store.checkpoints.fileStatus == .loaded(version: 121))
            #expect(store.committedState().isContentEqual(expected))
            store.committedState()._checkInvariants()
        }
        // Deleting the file loses nothing.
        try FileManager.default.removeItem(at: CheckpointFile.url(for: url))
        #expect(try Self.open(url).committedState().isContentEqual(expected))
    }

    @Test func theTailAfterTheCheckpointIsFolded() throws {
        let commits = RandomHistory.commits(seed: 4, count: 80)
        let url = try ReplayFixtures.journal(Array(commits.prefix(50)))
        _ = try Self.open(url)  // checkpoint at 50
        let journal = try Journal(fileURL: url, durability: .none)
        for commit in commits.dropFirst(50) { try journal.append(commit) }
        try journal.close()
        var configuration = Store.Configuration(fileURL: url, durability: .none)
        configuration.checkpoints = .init(usesFile: true, fileThreshold: 1_000_000)
        let store = try Store(configuration: configuration)
        #expect(store.checkpoints.fileStatus == .loaded(version: 50))
        #expect(store.committedState().isContentEqual(try ReplayFixtures.prefixStates(commits).last!))
    }

    @Test func aDamagedCheckpointIsIgnoredAndRebuilt() throws {
        let commits = RandomHistory.commits(seed: 5, count: 60)
        let url = try ReplayFixtures.journal(commits)
        let expected = try ReplayFixtures.prefixStates(commits).last!
        _ = try Self.open(url)
        let file = CheckpointFile.url(for: url)
        let original = try Data(contentsOf: file)
        // Every byte flipped in turn (a sample, to keep the test quick) is caught.
        for offset in stride(from: 0, to: original.count, by: max(1, original.count / 40)) {
            var damaged = original
            damaged[offset] ^= 0x20
            try damaged.write(to: file)
            let store = try Self.open(url)
            #expect(store.checkpointFile.waitUntilIdle())
            #expect(store.checkpoints.fileStatus == .written(version: 61), "flipped byte \(offset)")
            #expect(store.committedState().isContentEqual(expected))
            #expect(try Data(contentsOf: file) == original, "rebuilt")
        }
        // Truncated, and garbage.
        try original.prefix(original.count / 2).write(to: file)
        #expect(try Self.open(url).committedState().isContentEqual(expected))
        try Data("not a checkpoint".utf8).write(to: file)
        #expect(try Self.open(url).committedState().isContentEqual(expected))
    }

    /// A checkpoint with a matching checksum whose state the fold could
    /// never have made (crafted, or written by a bug) is rejected, not trusted.
    @Test(arguments: ["wrong type", "dangling link"])
    func aChecksummedCheckpointWithAnImpossibleStateIsRejected(tampering: String) throws {
        let owner = TypeSchema(name: "CkOwner", properties: [
            PropertySchema(name: "id", type: .int, isPrimaryKey: true),
            PropertySchema(name: "name", type: .string),
        ])
        let pet = TypeSchema(name: "CkPet", properties: [
            PropertySchema(name: "name", type: .string),
            PropertySchema(name: "owner", type: .object, objectType: "CkOwner"),
        ])
        let commits = [
            Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1), events: [.defineType(owner), .defineType(pet)]),
            Commit(version: 2, timestamp: Date(timeIntervalSinceReferenceDate: 2), events: [
                .create(table: 0, key: ObjectKey(1), values: [.int(1), .string("Ann")]),
                .create(table: 1, key: ObjectKey(1), values: [.string("Rex"), .link(ObjectKey(1))]),
            ]),
        ]
        let url = try ReplayFixtures.journal(commits)
        let journal = try Journal(fileURL: url)
        var state = try ReplayFixtures.prefixStates(commits).last!
        #expect(CheckpointFile.decode(try CheckpointFile.encode(state, journal: journal),
                                      journal: journal).map { $0.isContentEqual(state) } == .success(true))
        switch tampering {
        case "wrong type": state.tables[0].objects[1] = ObjectRecord(values: [.int(1), .int(7)])
        default: state.tables[1].objects[1] = ObjectRecord(values: [.string("Rex"), .link(ObjectKey(9))])
        }
        let bytes = try CheckpointFile.encode(state, journal: journal)
        guard case .invalidState? = Self.rejection(CheckpointFile.decode(bytes, journal: journal)) else {
            Issue.record("\(tampering): expected .invalidState, got \(CheckpointFile.decode(bytes, journal: journal))")
            return
        }
    }

    @Test func aCheckpointOfAnotherJournalIsIgnored() throws {
        let commits = RandomHistory.commits(seed: 6, count: 40)
        let first = try ReplayFixtures.journal(commits, name: "first")
        let second = try ReplayFixtures.journal(commits, name: "second")  // same commits, another file id
        _ = try Self.open(first)
        try FileManager.default.copyItem(at: CheckpointFile.url(for: first), to: CheckpointFile.url(for: second))
        var configuration = Store.Configuration(fileURL: second, durability: .none)
        configuration.checkpoints = .init(usesFile: true, fileThreshold: 1_000_000)
        let store = try Store(configuration: configuration)
        #expect(store.checkpointFile.waitUntilIdle())
        #expect(store.checkpoints.fileStatus == .written(version: 41))
        let journal = try Journal(contentsOf: second)
        if case .failure(let rejection) = CheckpointFile.load(for: journal) { Issue.record("rebuilt file rejected: \(rejection)") }
        let foreign = try Data(contentsOf: CheckpointFile.url(for: first))
        #expect(Self.rejection(CheckpointFile.decode(Array(foreign), journal: journal)) == .otherJournal)
    }

    @Test func aStaleCheckpointOfTheSameJournalIsIgnored() throws {
        let commits = RandomHistory.commits(seed: 8, count: 40)
        let other = RandomHistory.commits(seed: 9, count: 40)
        let url = try ReplayFixtures.journal(Array(commits.prefix(20)))
        let directory = url.deletingLastPathComponent()
        let copy = directory.appendingPathComponent("copy.journal")
        try FileManager.default.copyItem(at: url, to: copy)  // same file id, versions 1...20
        let journal = try Journal(fileURL: url, durability: .none)
        for commit in commits[20...] { try journal.append(commit) }
        try journal.close()
        _ = try Self.open(url)  // checkpoint at 41
        let checkpoint = try Data(contentsOf: CheckpointFile.url(for: url))
        // Beyond the journal: the 20-commit copy.
        let short = try Journal(contentsOf: copy)
        #expect(Self.rejection(CheckpointFile.decode(Array(checkpoint), journal: short)) == .beyondJournal(version: 41, journalVersion: 20))
        // Same file id and version, other commits: the copy continued differently.
        let diverged = try Journal(fileURL: copy, durability: .none)
        let renumbered = other.dropFirst(20).prefix(21).enumerated().map { index, commit in
            Commit(version: UInt64(21 + index), timestamp: commit.timestamp, label: "other", events: [])
        }
        for commit in renumbered { try diverged.append(commit) }
        try diverged.close()
        let reopened = try Journal(contentsOf: copy)
        #expect(reopened.lastVersion == 41)
        #expect(Self.rejection(CheckpointFile.decode(Array(checkpoint), journal: reopened)) == .fingerprint(version: 41))
        try checkpoint.write(to: CheckpointFile.url(for: copy))
        let store = try Self.open(copy)
        #expect(store.checkpointFile.waitUntilIdle())
        #expect(store.checkpoints.fileStatus == .written(version: 41))
        #expect(store.committedState().isContentEqual(try ReplayFixtures.prefixStates(Array(commits.prefix(20)) + renumbered).last!))
    }

    @Test func inMemoryCheckpointsStayBounded() throws {
        let index = CheckpointIndex(policy: .init(interval: 1, maximumInMemory: 10, usesFile: false))
        var state = StoreState()
        for commit in RandomHistory.commits(seed: 10, count: 200) {
            state = try state.applying(commit).state
            index.didFold(state, events: 1)
        }
        #expect(index.count <= 10)
        #expect(index.versions.last! > 201 - UInt64(index.interval))
        #expect(index.interval > 1)
        #expect(index.nearest(atOrBefore: 150).version <= 150)
    }
}
