import Foundation
import Testing
@testable import Chronicle

/// The threads a store's follower runs on, kept for the next one.
@Suite("Kept threads")
struct KeptThreadsTests {
    /// What a job saw: the thread it ran on.
    final class Seen: @unchecked Sendable { // written by the jobs before they signal, read after the wait
        var threads: [pthread_t] = []
        let lock = NSLock()
        func record() {
            lock.lock()
            threads.append(pthread_self())
            lock.unlock()
        }
    }

    /// Waits, up to ten seconds, for `condition` to hold; whether it did.
    static func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<10_000 {
            if condition() { return true }
            usleep(1_000)
        }
        return condition()
    }

    @Test func aParkedThreadRunsTheNextJob() throws {
        let threads = KeptThreads(name: "test kept", stackSize: 128 * 1024, maximumParked: 1)
        let seen = Seen()
        for _ in 0..<5 {
            let done = DispatchSemaphore(value: 0)
            threads.run {
                seen.record()
                done.signal()
            }
            done.wait()
            try #require(Self.eventually { threads.threadsParked == 1 })
        }
        #expect(threads.threadsStarted == 1)
        #expect(seen.threads.count == 5)
        #expect(Set(seen.threads.map { UInt(bitPattern: Int(bitPattern: $0)) }).count == 1)
    }

    @Test func jobsRunningAtOnceHaveThreadsOfTheirOwnAndAtMostTheBoundStaysParked() throws {
        let threads = KeptThreads(name: "test kept", stackSize: 128 * 1024, maximumParked: 2)
        let seen = Seen()
        let release = DispatchSemaphore(value: 0), started = DispatchSemaphore(value: 0)
        for _ in 0..<3 {
            threads.run {
                seen.record()
                started.signal()
                release.wait()
            }
        }
        for _ in 0..<3 { started.wait() }
        #expect(threads.threadsStarted == 3)
        #expect(Set(seen.threads.map { UInt(bitPattern: Int(bitPattern: $0)) }).count == 3)
        for _ in 0..<3 { release.signal() }
        try #require(Self.eventually { threads.threadsParked == 2 })
        // The third thread ended; a fourth job takes a parked one.
        let done = DispatchSemaphore(value: 0)
        threads.run { done.signal() }
        done.wait()
        #expect(threads.threadsStarted == 3)
    }

    @Test func aJobIsLetGoWhenItReturns() throws {
        final class Captured: Sendable {}
        let threads = KeptThreads(name: "test kept", stackSize: 128 * 1024, maximumParked: 1)
        weak var weakCaptured: Captured?
        let done = DispatchSemaphore(value: 0)
        do {
            let captured = Captured()
            weakCaptured = captured
            threads.run {
                withExtendedLifetime(captured) {}
                done.signal()
            }
        }
        done.wait()
        try #require(Self.eventually { threads.threadsParked == 1 })
        #expect(weakCaptured == nil)
    }
}
