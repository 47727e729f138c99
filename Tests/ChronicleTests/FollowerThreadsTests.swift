#if os(Linux)
import Foundation
import Synchronization
import Testing
@testable import Chronicle

/// The threads followers run on: reused after a follower ends, never
/// shared by two followers at once, ended after a while unused.
@Suite("Follower threads")
struct FollowerThreadsTests {
    /// A job that runs until `release` is set, counting itself in `running`.
    final class Gate: Sendable {
        let running = Atomic<Int>(0)
        let release = Atomic<Bool>(false)
        let ran = Atomic<Int>(0)

        func job() -> @Sendable () -> Void {
            { [self] in
                running.wrappingAdd(1, ordering: .sequentiallyConsistent)
                while !release.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
                running.wrappingSubtract(1, ordering: .sequentiallyConsistent)
                ran.wrappingAdd(1, ordering: .sequentiallyConsistent)
            }
        }
    }

    @Test func aJobAfterAnotherEndedRunsOnTheSameThread() throws {
        let pool = FollowerThreads(keepAlive: .seconds(60))
        let first = Gate()
        pool.run(first.job())
        #expect(SharedJournalTests.eventually { first.running.load(ordering: .sequentiallyConsistent) == 1 })
        first.release.store(true, ordering: .releasing)
        #expect(SharedJournalTests.eventually { pool.parkedCount == 1 })
        #expect(first.ran.load(ordering: .sequentiallyConsistent) == 1)

        let second = Gate()
        pool.run(second.job())
        #expect(SharedJournalTests.eventually { second.running.load(ordering: .sequentiallyConsistent) == 1 })
        #expect(pool.threadCount == 1)
        second.release.store(true, ordering: .releasing)
        #expect(SharedJournalTests.eventually { pool.parkedCount == 1 })
    }

    /// A job never waits behind another: two handed over while one thread
    /// is parked both run at once, the second on a new thread.
    @Test func jobsHandedOverTogetherRunAtOnce() throws {
        let pool = FollowerThreads(keepAlive: .seconds(60))
        let warm = Gate()
        warm.release.store(true, ordering: .releasing)
        pool.run(warm.job())
        #expect(SharedJournalTests.eventually { pool.parkedCount == 1 })

        let gate = Gate()
        for _ in 0..<3 { pool.run(gate.job()) }
        #expect(SharedJournalTests.eventually { gate.running.load(ordering: .sequentiallyConsistent) == 3 })
        #expect(pool.threadCount == 3)
        gate.release.store(true, ordering: .releasing)
        #expect(SharedJournalTests.eventually { pool.parkedCount == 3 })
        #expect(gate.ran.load(ordering: .sequentiallyConsistent) == 3)
    }

    @Test func aThreadUnusedForItsKeepAliveEnds() throws {
        let pool = FollowerThreads(keepAlive: .milliseconds(20))
        let gate = Gate()
        gate.release.store(true, ordering: .releasing)
        pool.run(gate.job())
        #expect(SharedJournalTests.eventually { gate.ran.load(ordering: .sequentiallyConsistent) == 1 })
        #expect(SharedJournalTests.eventually { pool.threadCount == 0 })
        #expect(pool.parkedCount == 0)
        // And a new job after that starts a thread again.
        let next = Gate()
        next.release.store(true, ordering: .releasing)
        pool.run(next.job())
        #expect(SharedJournalTests.eventually { next.ran.load(ordering: .sequentiallyConsistent) == 1 })
    }

    /// A dropped store's follower ends its job and parks its thread for
    /// the next store's (other tests' stores may take it meanwhile, so this
    /// looks only for a parked thread and the store's follower asleep).
    @Test func aDroppedStoresFollowerParksItsThread() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let store = try SharedJournalTests.open(url)
            #expect(SharedJournalTests.eventually { (store.followerSleeps ?? 0) >= 1 })
        }
        #expect(SharedJournalTests.eventually { FollowerThreads.shared.parkedCount >= 1 })
    }
}
#endif
