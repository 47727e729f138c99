import Foundation
import Synchronization
import Testing
@testable import Chronicle

/// The lock that serialises write transactions, on its own: blocking and
/// `async` callers mixed, and the order in which waiters get it.
@Suite("Writer lock")
struct WriterLockTests {
    /// Counts the callers inside the lock, and the times two were at once.
    final class Occupancy: Sendable {
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let entries = Atomic<Int>(0)

        func enter() {
            if inside.add(1, ordering: .acquiringAndReleasing).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
            entries.add(1, ordering: .relaxed)
            // Stay a while (a few microseconds), watching for company.
            for _ in 0..<2_000 where inside.load(ordering: .relaxed) != 1 { overlaps.add(1, ordering: .relaxed) }
            inside.subtract(1, ordering: .acquiringAndReleasing)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func blockingThreadsAndTasksNeverHoldItTogether() async {
        let lock = WriterLock()
        let occupancy = Occupancy()
        let rounds = 300
        let finished = DispatchGroup()
        for _ in 0..<4 {
            finished.enter()
            Thread {
                for _ in 0..<rounds {
                    lockBlocking(lock)
                    occupancy.enter()
                    lock.unlock()
                }
                finished.leave()
            }.start()
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<rounds {
                        await lock.lock()
                        occupancy.enter()
                        lock.unlock()
                    }
                }
            }
        }
        await withCheckedContinuation { continuation in
            finished.notify(queue: .global()) { continuation.resume() }
        }
        #expect(occupancy.overlaps.load(ordering: .relaxed) == 0)
        #expect(occupancy.entries.load(ordering: .relaxed) == 8 * rounds)
        #expect(lock.waiterCount == 0)
    }

    @Test(.timeLimit(.minutes(1)))
    func theOldestWaiterIsWokenFirst() async throws {
        let lock = WriterLock()
        let order = Locked<[String]>([])
        lockBlocking(lock)
        let done = DispatchGroup()
        for name in ["first", "second", "third"] {
            let queued = lock.waiterCount
            done.enter()
            Thread {
                lockBlocking(lock)
                order.withLock { $0.append(name) }
                lock.unlock()
                done.leave()
            }.start()
            // Each waiter queues before the next starts.
            while lock.waiterCount == queued { try await Task.sleep(for: .milliseconds(1)) }
        }
        lock.unlock()
        await withCheckedContinuation { continuation in
            done.notify(queue: .global()) { continuation.resume() }
        }
        #expect(order.withLock { $0 } == ["first", "second", "third"])
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaiterGetsTheLockFromAWriterThatRetakesItAtOnce() async {
        let lock = WriterLock()
        let waiterHasIt = Atomic<Bool>(false)
        let gaveUp = Atomic<Bool>(false)
        lockBlocking(lock)
        let done = DispatchGroup()
        done.enter()
        Thread {
            // Releases and retakes the lock in a tight loop, running when it
            // retakes: the waiter must still get in (woken at each release,
            // handed the lock once it has waited long enough). Bounded in time,
            // not in turns: a busy machine may not run the waiting task for
            // a long while.
            let deadline = ContinuousClock.now + .seconds(30)
            while !waiterHasIt.load(ordering: .acquiring) {
                if ContinuousClock.now > deadline {
                    gaveUp.store(true, ordering: .relaxed)
                    break
                }
                lock.unlock()
                lockBlocking(lock)
            }
            lock.unlock()
            done.leave()
        }.start()
        // A thread, not a task: the cooperative pool of a busy test run
        // may not run a task for tens of seconds, while the loop above
        // burns a core.
        done.enter()
        Thread {
            lockBlocking(lock)
            waiterHasIt.store(true, ordering: .releasing)
            lock.unlock()
            done.leave()
        }.start()
        await withCheckedContinuation { continuation in
            done.notify(queue: .global()) { continuation.resume() }
        }
        let waitedTooLong = gaveUp.load(ordering: .relaxed)
        #expect(!waitedTooLong)
    }

    @Test(.timeLimit(.minutes(1)))
    func aSuspendedWriterIsWokenByARelease() async throws {
        let lock = WriterLock()
        lockBlocking(lock)
        let waiter = Task {
            await lock.lock()
            lock.unlock()
            return true
        }
        while lock.waiterCount == 0 { try await Task.sleep(for: .milliseconds(1)) }
        lock.unlock()
        #expect(await waiter.value)
        #expect(lock.waiterCount == 0)
    }
}

/// The blocking `lock()`, which an `async` context would not pick.
private func lockBlocking(_ lock: WriterLock) {
    lock.lock()
}

/// The release policy on its own: who is woken, and when the lock is
/// handed over rather than released.
@Suite("Writer lock: release policy")
struct WriterLockPolicyTests {
    private func blocking() -> WriterLock.Wake { .blocking(DispatchSemaphore(value: 0)) }

    @Test func aReleaseWakesTheOldestWaiterAndFreesTheLock() throws {
        var state = WriterLock.State()
        let first = state.tryAcquire(), second = state.tryAcquire()
        #expect(first && !second)
        let owedA = state.queue(blocking(), since: nil, now: .now), owedB = state.queue(blocking(), since: nil, now: .now)
        #expect(!owedA && !owedB)
        let released = state.release()
        let woken = try #require(released)
        #expect(!woken.isOwed)
        #expect(!state.held, "woken, not handed the lock: a running writer may take it")
        #expect(state.waiterCount == 1)
        let retaken = state.tryAcquire()
        #expect(retaken)
        let last = state.release()
        #expect(last?.isOwed == false)
        let none = state.release()
        #expect(none == nil)
        #expect(!state.held)
    }

    @Test func aWaiterThatLostKeepsItsPlace() throws {
        var state = WriterLock.State()
        _ = state.tryAcquire()
        _ = state.queue(blocking(), since: nil, now: .now)
        _ = state.queue(blocking(), since: nil, now: .now)
        let wokenFirst = state.release()
        #expect(wokenFirst != nil)
        // A running writer took the lock first; the woken one queues again.
        let barged = state.tryAcquire()
        #expect(barged)
        let marker = DispatchSemaphore(value: 0)
        let now = ContinuousClock.now
        let owed = state.queue(.blocking(marker), since: now, now: now)
        #expect(!owed, "it has not waited long enough to be handed the lock")
        let released = state.release()
        let next = try #require(released)
        guard case .blocking(let semaphore) = next.wake else {
            Issue.record("expected a blocking waiter")
            return
        }
        #expect(semaphore === marker, "the waiter that lost is woken before the one behind it")
    }

    @Test func aWaiterThatWaitedTooLongIsHandedTheLock() throws {
        var state = WriterLock.State()
        _ = state.tryAcquire()
        let now = ContinuousClock.now
        let owed = state.queue(blocking(), since: now - WriterLock.State.handOverAfter, now: now)
        #expect(owed)
        let released = state.release()
        let waiter = try #require(released)
        #expect(waiter.isOwed)
        #expect(state.held, "handed over: no running writer can take it first")
        let taken = state.tryAcquire()
        #expect(!taken)
    }
}
