#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import Chronicle

@Suite("Journal: the writer's lock")
struct JournalLockingTests {
    @Test func aSecondWriterInThisProcessIsLockedOut() throws {
        let url = try JournalFixtures.journalURL()
        let first = try Journal(fileURL: url)
        try first.append(JournalFixtures.commit(1))
        #expect(JournalFixtures.journalError { try Journal(fileURL: url) } == .locked(url))
        #expect(try Journal(contentsOf: url).lastVersion == 1)  // readers need no lock
        try first.close()
        #expect(try Journal(fileURL: url).lastVersion == 1)  // closing released it
    }

    #if !os(Windows)
    @Test func aSecondProcessIsLockedOut() async throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url)
        try journal.append(JournalFixtures.commit(1))
        let path = url.path
        await #expect(processExitsWith: .success) { [path = path as String] in
            let url = URL(fileURLWithPath: path)
            do {
                _ = try Journal(fileURL: url)
                exit(1)  // it must not get the lock
            } catch let error as JournalError {
                guard case .locked(let lockedURL) = error, lockedURL.path == path else { exit(2) }
                // What we want; and reading still works without the lock.
                guard (try? Journal(contentsOf: url))?.lastVersion == 1 else { exit(3) }
            } catch {
                exit(4)
            }
        }
        try journal.close()
        await #expect(processExitsWith: .success) { [path = path as String] in
            guard (try? Journal(fileURL: URL(fileURLWithPath: path)))?.lastVersion == 1 else { exit(1) }
        }
    }
    #endif
}
