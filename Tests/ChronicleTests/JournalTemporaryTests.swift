import Foundation
import Testing
@testable import Chronicle

/// A journal's sequences and readers keep working when the `Journal` they
/// came from is not kept in a variable, and `Array` of a sequence that
/// ends early (a read failed) gives what was read, without trapping.
@Suite("Journal: sequences outliving their journal")
struct JournalTemporaryTests {
    @Test func theCommitsOfAJournalNotHeldInAVariableAreAllRead() async throws {
        let url = try PetJournal.versionOne()
        // This trapped: the temporary journal was closed by its deinit
        // before `Array` read, and the sequence had promised two commits.
        let commits = Array(try Journal(contentsOf: url).commits())
        #expect(commits.map(\.version) == [1, 2])
        #expect(commits.last?.label == "first pets")
        var reader = try Journal(contentsOf: url).reader(from: 2)
        #expect(try reader.next()?.label == "first pets")
        var versions: [UInt64] = []
        for try await commit in try Journal(contentsOf: url).asyncCommits() { versions.append(commit.version) }
        #expect(versions == [1, 2])
    }

    @Test func anArrayOfASequenceThatStopsEarlyHoldsWhatWasRead() throws {
        let (url, _, _) = try ForwardCompatibilityTests.journalWithNewerRecord(ForwardCompatibilityTests.NewerPayload.all[0])
        let journal = try Journal(contentsOf: url)
        #expect(journal.lastVersion == 3)
        #expect(Array(journal.commits()).map(\.version) == [1, 2])
        #expect(journal.commits().underestimatedCount <= 2)
    }
}
