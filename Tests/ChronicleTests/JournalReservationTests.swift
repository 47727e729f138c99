import Foundation
import Testing
@testable import Chronicle

/// A syncing file journal zero-fills space ahead of its data, so that a
/// durable append does not grow the file (see `JournalCore.reserve`).
@Suite("Journal: space reserved ahead")
struct JournalReservationTests {
    static func fileSize(_ url: URL) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
    }

    @Test func readersIgnoreTheReservationAndClosingCutsIt() throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url, durability: .full)
        for version in UInt64(1)...3 { try journal.append(JournalFixtures.commit(version)) }
        let end = try journal.core.readRange(from: 1).end
        // While open: zeros ahead of the data, and the file does not grow per append.
        let reservedSize = try Self.fileSize(url)
        #expect(reservedSize > end && reservedSize >= JournalCore.reservation)
        try journal.append(JournalFixtures.commit(4))
        #expect(try Self.fileSize(url) == reservedSize)

        // A reader (another process would do the same) sees the commits and skips the zeros, which are no torn tail.
        let reader = try Journal(contentsOf: url)
        #expect(reader.lastVersion == 4)
        #expect(try JournalFixtures.readAll(reader).map(\.version) == [1, 2, 3, 4])
        #expect(reader.discardedTailBytes == 0)

        try journal.close()
        #expect(try Self.fileSize(url) == journal.core.readRange(from: 1).end)
        let reopened = try Journal(fileURL: url, durability: .full)
        #expect(reopened.discardedTailBytes == 0 && reopened.lastVersion == 4)
    }

    /// A commit larger than the space left is written first, then a
    /// megabyte of zeros after it: the file ends a reservation past the
    /// record, and the next appends fit in it.
    @Test func aCommitLargerThanTheReservationIsFollowedByAFreshReservation() throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url, durability: .full)
        try journal.append(JournalFixtures.commit(1))
        let large = JournalFixtures.commit(2, payload: JournalCore.reservation + JournalCore.reservation / 2)
        try journal.append(large)
        let end = try journal.core.readRange(from: 1).end
        let reservedSize = try Self.fileSize(url)
        #expect(end > JournalCore.reservation + JournalCore.reservation / 2)
        #expect(reservedSize == end + JournalCore.reservation)
        try journal.append(JournalFixtures.commit(3))
        #expect(try Self.fileSize(url) == reservedSize)
        let reader = try Journal(contentsOf: url)
        #expect(try JournalFixtures.readAll(reader) == [JournalFixtures.commit(1), large, JournalFixtures.commit(3)])
        try journal.close()
        let reopened = try Journal(fileURL: url, durability: .full)
        #expect(reopened.discardedTailBytes == 0 && reopened.lastVersion == 3)
    }

    @Test func aJournalThatDoesNotSyncReservesNothing() throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url, durability: .none)
        try journal.append(JournalFixtures.commit(1))
        #expect(try Self.fileSize(url) == journal.core.readRange(from: 1).end)
    }
}
