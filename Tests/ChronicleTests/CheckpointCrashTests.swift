import Foundation
import Testing
@testable import Chronicle

/// A stand-in for a crash: thrown by the checkpoint write's fault-injection seam.
private let simulatedCrash = JournalError.io(operation: "simulated crash", errno: 0, path: "")

/// Writing the checkpoint file is atomic and leaves the journal alone: a
/// crash after any step of the replacement leaves the old file (or none) or
/// the new one, whole, and the store opens to the same state.
@Suite("Checkpoint file: crash while writing")
struct CheckpointCrashTests {
    static func open(_ url: URL) throws -> Store {
        var configuration = Store.Configuration(fileURL: url, durability: .none)
        // Only explicit writes, so the crash is the one write there is.
        configuration.checkpoints = .init(usesFile: true, fileThreshold: .max)
        return try Store(configuration: configuration)
    }

    @Test(arguments: FileReplacementStep.allCases, [true, false])
    func aCrashAfterAnyStepLeavesTheOldFileOrTheNewOne(step: FileReplacementStep, hadFile: Bool) throws {
        let commits = RandomHistory.commits(seed: 21, count: 100)
        let last = UInt64(commits.count)
        let url = try ReplayFixtures.journal(Array(commits.prefix(60)), name: "crash\(step.rawValue)\(hadFile)")
        if hadFile { try Self.open(url).writeCheckpoint() }  // at version 60
        let journal = try Journal(fileURL: url, durability: .none)
        for commit in commits.dropFirst(60) { try journal.append(commit) }
        try journal.close()
        let journalBytes = try JournalFixtures.bytes(url)

        var store: Store? = try Self.open(url)
        let expected = store!.committedState()
        #expect(throws: JournalError.self) {
            try store!.writeCheckpoint { (done) throws(JournalError) in
                if done == step { throw simulatedCrash }
            }
        }
        store = nil  // the "process" dies

        #expect(try JournalFixtures.bytes(url) == journalBytes, "the journal is only read")
        let renamed = step.rawValue >= FileReplacementStep.renamed.rawValue
        let fileVersion: UInt64? = renamed ? last : (hadFile ? 60 : nil)
        #expect(try CheckpointRefreshTests.fileVersion(url) == fileVersion)
        #expect(try CheckpointRefreshTests.leftovers(url).count == (renamed ? 0 : 1), "as a crash leaves it")
        let reopened = try Self.open(url)
        if let fileVersion {
            #expect(reopened.checkpoints.fileStatus == .loaded(version: fileVersion))
        } else {
            #expect(!FileManager.default.fileExists(atPath: CheckpointFile.url(for: url).path))
        }
        #expect(reopened.committedState().isContentEqual(expected))
        // The next write clears what the crash left.
        try reopened.writeCheckpoint()
        #expect(try CheckpointRefreshTests.leftovers(url).isEmpty)
        #expect(try CheckpointRefreshTests.fileVersion(url) == last)
    }

    @Test func theFileIsPrivateAndAnEmptyStoreWritesNone() throws {
        let url = try JournalFixtures.journalURL()
        let store = try Self.open(url)
        try store.writeCheckpoint()
        #expect(!FileManager.default.fileExists(atPath: CheckpointFile.url(for: url).path))
        try CheckpointRefreshTests.bump(store)
        try store.writeCheckpoint()
        let attributes = try FileManager.default.attributesOfItem(atPath: CheckpointFile.url(for: url).path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "it holds what the journal holds")
    }
}
