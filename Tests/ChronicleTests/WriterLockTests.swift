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
