import Foundation
import Testing
@testable import Chronicle

/// Folding a long journal reads its commits on another thread, ahead of the
/// fold (``CommitReadAhead``): the fold must see exactly what a reader
/// taking one commit at a time sees — the same commits in the same order,
/// stopping where it is told to, and a damaged record's error after the
/// commits before it.
@Suite("Journal: commits read ahead of the fold")
struct CommitReadAheadTests {
    static let player = TypeSchema(name: "RaPlayer", properties: [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "team", type: .string, isIndexed: true),
    ])

    /// A type, then 40 commits of 300 players with 120-byte names (about
    /// 1.5 MB: past the read-ahead threshold), then an update and a delete.
    static func commits() -> [Commit] {
        var commits = [Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1), events: [.defineType(player)])]
        let padding = String(repeating: "n", count: 120)
        for batch in 0..<40 {
            let events = (0..<300).map { index -> Event in
                let id = batch * 300 + index
                return .create(table: 0, key: ObjectKey(Int64(id + 1)),
                               values: [.int(Int64(id)), .string("\(id) \(padding)"), .string("team-\(id % 9)")])
            }
            commits.append(Commit(version: UInt64(commits.count + 1), timestamp: Date(timeIntervalSinceReferenceDate: 2), events: events))
        }
        commits.append(Commit(version: UInt64(commits.count + 1), timestamp: Date(timeIntervalSinceReferenceDate: 3), events: [
            .set(table: 0, key: ObjectKey(7), property: 1, value: .string("renamed")),
            .delete(table: 0, key: ObjectKey(8)),
        ]))
        return commits
    }

    static func journal(_ name: String = #function) throws -> (journal: Journal, commits: [Commit], url: URL) {
        let commits = Self.commits()
        let url = try ReplayFixtures.journal(commits, name: name)
        let journal = try Journal(contentsOf: url)
        #expect(journal.reader(from: 1).remainingBytes >= CommitReadAhead.minimumBytes, "the fixture must take the read-ahead path")
        return (journal, commits, url)
    }

    @Test func aLongJournalFoldsAsItsCommitsAppliedOneAtATime() throws {
        let (journal, commits, _) = try Self.journal()
        var state = StoreState()
        var reader = journal.reader(from: 1)
        var seen: [UInt64] = []
        try state.fold(&reader) { state, commit in
            seen.append(commit.version)
            return state.version == commit.version
        }
        #expect(seen == Array(1...UInt64(commits.count)))
        let expected = try #require(try ReplayFixtures.prefixStates(commits).last)
        #expect(state.isContentEqual(expected))
        #expect(state.version == expected.version)
    }

    @Test(arguments: [1, 2, 17, 41])
    func aFoldThroughAVersionStopsThere(version: UInt64) throws {
        let (journal, commits, _) = try Self.journal("aFoldThroughAVersionStopsThere\(version)")
        var state = StoreState()
        var reader = journal.reader(from: 1)
        try state.fold(&reader, through: version)
        #expect(state.version == version)
        #expect(state.isContentEqual(try ReplayFixtures.prefixStates(Array(commits.prefix(Int(version)))).last!))
    }

    @Test func aFoldThatStopsEarlyStopsReading() throws {
        let (journal, _, _) = try Self.journal()
        var state = StoreState()
        var reader = journal.reader(from: 1)
        var seen = 0
        try state.fold(&reader) { _, _ in
            seen += 1
            return seen < 3
        }
        #expect(state.version == 3)
        #expect(seen == 3)
        try journal.close()
    }

    /// The record damaged after the journal was opened: the fold folds
    /// every commit before it, then throws what a one-at-a-time reader throws.
    @Test func aDamagedRecordStopsTheFoldAfterTheCommitsBeforeIt() throws {
        let (journal, _, url) = try Self.journal()
        let handle = try FileHandle(forUpdating: url)
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size * 3 / 5)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: size * 3 / 5)
        try handle.write(contentsOf: [byte ^ 0x5A])
        try handle.close()

        var oneAtATime = journal.reader(from: 1)
        var expectedVersions: [UInt64] = []
        var expectedError: JournalError?
        do {
            while let commit = try oneAtATime.next() { expectedVersions.append(commit.version) }
        } catch {
            expectedError = error
        }
        let damage = try #require(expectedError)

        var state = StoreState()
        var reader = journal.reader(from: 1)
        var seen: [UInt64] = []
        #expect(throws: JournalFoldError.self) {
            try state.fold(&reader) { _, commit in
                seen.append(commit.version)
                return true
            }
        }
        #expect(seen == expectedVersions)
        #expect(state.version == expectedVersions.last)
        do throws(JournalFoldError) {
            var again = StoreState()
            var reader = journal.reader(from: 1)
            try again.fold(&reader)
            Issue.record("the fold should have thrown")
        } catch {
            guard case .journal(let error) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error == damage)
        }
    }
}
