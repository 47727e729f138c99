#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization
import Testing
@testable import Chronicle

@Suite("Journal: failed writes and syncs poison it")
struct JournalFailureTests {
    static let simulated = JournalError.io(operation: "fdatasync", errno: EIO, path: "simulated")

    @Test(arguments: [Durability.full, .batched(maxDelay: .seconds(1), maxCommits: 1)])
    func aFailedSyncFailsLaterAppendsButReadsKeepWorking(durability: Durability) throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url, durability: durability)
        let commits = (1...3).map { JournalFixtures.commit(UInt64($0)) }
        for commit in commits { try journal.append(commit) }
        let syncs = Atomic<Int>(0)
        journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in
            syncs.add(1, ordering: .relaxed)
            throw Self.simulated
        })
        // The failing append sees the sync's own error.
        let first = JournalFixtures.journalError { try journal.append(JournalFixtures.commit(4)) }
        #expect(first == Self.simulated)
        #expect(journal.failure == Self.simulated)
        // Later ones are refused without touching the disk again: a failed sync is never retried.
        let later = JournalFixtures.journalError { try journal.append(JournalFixtures.commit(5)) }
        guard case .failed(let reason)? = later else {
            Issue.record("expected .failed, got \(String(describing: later))")
            return
        }
        #expect(reason.contains("fdatasync"))
        #expect(syncs.load(ordering: .relaxed) == 1)
        #expect(JournalFixtures.journalError { try journal.sync() } != nil)
        #expect(syncs.load(ordering: .relaxed) == 1)
        // Reads work.
        #expect(try JournalFixtures.readAll(journal).prefix(3) == commits[...])
        try journal.close()
        // What was committed before is intact after reopening.
        let reopened = try Journal(fileURL: url)
        #expect(try JournalFixtures.readAll(reopened).prefix(3) == commits[...])
        try reopened.append(JournalFixtures.commit(reopened.lastVersion + 1))
    }

    @Test func aFailedWriteFailsLaterAppendsButReadsKeepWorking() throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url)
        let commits = (1...3).map { JournalFixtures.commit(UInt64($0)) }
        for commit in commits { try journal.append(commit) }
        let writes = Atomic<Int>(0)
        journal.faultInjection = FaultInjection(beforeWrite: { (_: UInt64) throws(JournalError) in
            writes.add(1, ordering: .relaxed)
            throw .diskFull(path: "simulated", errno: ENOSPC)
        })
        #expect(JournalFixtures.journalError { try journal.append(JournalFixtures.commit(4)) } == .diskFull(path: "simulated", errno: ENOSPC))
        journal.faultInjection = nil  // even with the disk back, the journal stays failed
        let later = JournalFixtures.journalError { try journal.append(JournalFixtures.commit(4)) }
        guard case .failed? = later else {
            Issue.record("expected .failed, got \(String(describing: later))")
            return
        }
        #expect(writes.load(ordering: .relaxed) == 1)
        #expect(journal.lastVersion == 3)
        #expect(try JournalFixtures.readAll(journal) == commits)
        try journal.close()
        #expect(try JournalFixtures.readAll(Journal(fileURL: url)) == commits)
    }

    @Test func theInMemoryJournalFailsTheSameWay() throws {
        let journal = Journal.inMemory()
        try journal.append(JournalFixtures.commit(1))
        journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in throw Self.simulated })
        #expect(JournalFixtures.journalError { try journal.append(JournalFixtures.commit(2)) } == Self.simulated)
        #expect(JournalFixtures.journalError { try journal.append(JournalFixtures.commit(3)) } != nil)
        #expect(Array(journal.commits()).count == 2)
    }

    /// A real `EFBIG`: the child process lowers its file-size limit, so a write
    /// past it fails (with `SIGXFSZ` ignored).
    @Test func aWritePastTheFileSizeLimitIsDiskFull() async throws {
        let url = try JournalFixtures.journalURL()
        do {
            let journal = try Journal(fileURL: url)
            try journal.append(JournalFixtures.commit(1))
        }
        let path = url.path
        await #expect(processExitsWith: .success) { [path = path as String] in
            signal(SIGXFSZ, SIG_IGN)
            var limit = rlimit(rlim_cur: 64 * 1024, rlim_max: 64 * 1024)
            #if canImport(Glibc)
            guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else { exit(10) }
            #else
            guard setrlimit(RLIMIT_FSIZE, &limit) == 0 else { exit(10) }
            #endif
            guard let journal = try? Journal(fileURL: URL(fileURLWithPath: path)) else { exit(11) }
            do {
                try journal.append(JournalFixtures.commit(2, payload: 100_000))
                exit(12)
            } catch let error as JournalError {
                guard case .diskFull(_, EFBIG) = error else { exit(13) }
            } catch { exit(14) }
            do {
                try journal.append(JournalFixtures.commit(2))
                exit(15)
            } catch let error as JournalError {
                guard case .failed = error else { exit(16) }
            } catch { exit(17) }
            guard Array(journal.commits()).map(\.version) == [1] else { exit(18) }
        }
        // The partial record the failed write may have left is a torn tail.
        let reopened = try Journal(fileURL: url)
        #expect(Array(reopened.commits()).map(\.version) == [1])
        try reopened.append(JournalFixtures.commit(2, payload: 100_000))
    }
}
