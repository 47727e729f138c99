import Foundation
import Testing
@testable import Chronicle

/// Many tasks writing, reading, observing and cancelling at once, on one
/// store. Run under ThreadSanitizer by `scripts/sanitize` and by CI
/// (`--filter Concurrency`); the checks hold without it too.
@Suite("Concurrency stress")
struct ConcurrencyStressTests {
    static let counters = 8
    static let writesPerCounter = 40

    @Test(.timeLimit(.minutes(2)), arguments: [false, true])
    func writersReadersObserversAndCancellersAtOnce(onFile: Bool) async throws {
        let store: Store
        if onFile {
            let url = try JournalFixtures.journalURL()
            store = try Store(configuration: .init(fileURL: url, durability: .batched(maxDelay: .milliseconds(1), maxCommits: 8)))
        } else {
            store = try scratchStore()
        }
        try store.write {
            for id in 0..<Self.counters { store.create(Counter.self, value: ["id": id, "value": 0]) }
        }
        let baseVersion = store.version
        let handles = (0..<Self.counters).map { store.object(ofType: Counter.self, forPrimaryKey: $0)! }
        let writersDone = Locked(false)
        let observedFinal = Locked(0)

        // Object observers: values only grow, and the final value arrives (coalesced or not).
        let observers = (0..<Self.counters).map { id in
            let stream = handles[id].changes(keyPaths: [\.value])
            return Task { () -> Int in
                var last = 0
                for await change in stream {
                    guard case .change(_, let properties) = change,
                          let value = properties.first(where: { $0.name == "value" })?.newValue as? Int else { continue }
                    #expect(value > last, "counter \(id) went from \(last) to \(value)")
                    last = value
                    if value == Self.writesPerCounter {
                        observedFinal.withLock { $0 += 1 }
                        break
                    }
                }
                return last
            }
        }
        // A Results observer that reads until cancelled.
        let resultsObserver = Task {
            var updates = 0
            for await change in store.objects(Counter.self).filter(#Predicate<Counter> { $0.value >= 0 }).changes() {
                if case .update(let results, _, _, _) = change {
                    #expect(results.count == Self.counters)
                    updates += 1
                }
            }
            return updates
        }

        try await withThrowingTaskGroup(of: Void.self) { group in
            // Writers: each counter is incremented by its own task.
            for id in 0..<Self.counters {
                group.addTask {
                    let counter = handles[id]
                    for _ in 0..<Self.writesPerCounter {
                        try await store.asyncWrite { counter.value += 1 }
                    }
                }
            }
            // Readers: snapshots through Results and properties; values only grow.
            for _ in 0..<4 {
                group.addTask {
                    var seen = [Int](repeating: 0, count: Self.counters)
                    let limit = Self.writesPerCounter
                    while !writersDone.withLock({ $0 }) {
                        let all = store.objects(Counter.self).sorted(by: \.id)
                        #expect(all.count == Self.counters)
                        for counter in all {
                            let value = counter.value
                            #expect(value >= seen[counter.id] && value <= Self.writesPerCounter)
                            seen[counter.id] = value
                        }
                        #expect(store.objects(Counter.self).filter(#Predicate<Counter> { $0.value > limit }).isEmpty)
                        await Task.yield()
                    }
                }
            }
            // Cancellers: streams made and cancelled mid-iteration, or dropped unread.
            for round in 0..<4 {
                group.addTask {
                    for i in 0..<25 {
                        let counter = handles[(round + i) % Self.counters]
                        let consumer = Task {
                            for await _ in counter.changes() {}
                            for await _ in store.objects(Counter.self).changes() {}
                        }
                        _ = try counter.changes(keyPaths: ["value"]) as ObjectChanges<Counter>
                        try await Task.sleep(for: .microseconds(Int.random(in: 0...500)))
                        consumer.cancel()
                        _ = await consumer.value
                    }
                }
            }
            // Wait for the writers (the first 8 tasks) by waiting for their commits.
            group.addTask {
                while store.version < baseVersion + UInt64(Self.counters * Self.writesPerCounter) {
                    try await Task.sleep(for: .milliseconds(1))
                }
                writersDone.withLock { $0 = true }
            }
            try await group.waitForAll()
        }

        // No lost commits: every increment is there, once.
        #expect(store.version == baseVersion + UInt64(Self.counters * Self.writesPerCounter))
        #expect(handles.map(\.value) == Array(repeating: Self.writesPerCounter, count: Self.counters))
        for observer in observers { #expect(await observer.value == Self.writesPerCounter) }
        #expect(observedFinal.withLock { $0 } == Self.counters)
        resultsObserver.cancel()
        _ = await resultsObserver.value
        // Every registration is freed once its stream and task are gone.
        for _ in 0..<200 where store.observers.count > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(store.observers.count == 0)
        // The journal holds exactly the published state.
        try store.journal.sync()
        let refolded = try Store.fold(store.journal)
        #expect(refolded.isContentEqual(store.committedState()))
        #expect(refolded.version == store.version)
    }

    /// An unmanaged object is `Sendable`: tasks may read and write its
    /// properties at once (its values are behind a lock), and the last
    /// write wins. Under `--sanitize=thread` this must report no race.
    /// The names are longer than a string kept inline (15 bytes), so each
    /// write releases the string it replaces: two writes at once outside
    /// the lock would release one string twice.
    @Test func anUnmanagedObjectIsSharedBetweenTasks() async {
        let gizmo = Gizmo()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<2_000 {
                        gizmo.name = "a name on the heap, task \(task), round \(round)"
                        #expect(gizmo.name.hasPrefix("a name on the heap, task "))
                    }
                }
            }
        }
        #expect(gizmo.name.hasSuffix(", round 1999"))
    }

    /// ``WordLock`` excludes: threads adding to one counter under it, each
    /// many times, lose no addition (an addition outside the lock would:
    /// a read and a write apart, on two processors at once).
    @Test(.timeLimit(.minutes(1)))
    func aWordLockExcludesEveryOtherThread() {
        let word = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        word.initialize(to: 0)
        counter.initialize(to: 0)
        defer { word.deallocate(); counter.deallocate() }
        struct Shared: @unchecked Sendable { // touched only under the lock being tested
            let word: UnsafeMutablePointer<UInt32>, counter: UnsafeMutablePointer<Int>
        }
        let shared = Shared(word: word, counter: counter)
        let threads = 4, rounds = 50_000
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            for _ in 0..<rounds {
                WordLock.lock(shared.word)
                let value = shared.counter.pointee
                shared.counter.pointee = value + 1
                WordLock.unlock(shared.word)
            }
        }
        #expect(counter.pointee == threads * rounds)
        #expect(word.pointee == 0)
    }

    /// Another thread reading an instance while the write that adds it is
    /// in progress reads the instance's own values (the published state has
    /// no record of it yet); once the write commits, the record.
    @Test(.timeLimit(.minutes(1)))
    func anInstanceBeingAddedReadsItsOwnValuesOnAnotherThread() throws {
        let store = try scratchStore()
        let gizmo = Gizmo()
        gizmo.id = 7
        gizmo.name = "seven"
        final class Seen: @unchecked Sendable { // written by the reading thread before it signals, read after the wait
            var id = 0, name = ""
        }
        func readOnAnotherThread() -> Seen {
            let seen = Seen(), done = DispatchSemaphore(value: 0)
            Thread {
                seen.id = gizmo.id
                seen.name = gizmo.name
                done.signal()
            }.start()
            done.wait()
            return seen
        }
        try store.write {
            store.add(gizmo)
            gizmo.name = "seven, renamed"
            let seen = readOnAnotherThread()
            #expect(seen.id == 7)
            #expect(seen.name == "seven")
        }
        let seen = readOnAnotherThread()
        #expect(seen.name == "seven, renamed")
    }

    /// The same for collection properties and linking objects: an
    /// employee being added, with a list of two dogs, read on another
    /// thread while the write runs, shows its own list (two dogs, named as
    /// before the write changed them) and the dogs no owner yet; after the
    /// commit, the store's.
    @Test(.timeLimit(.minutes(1)))
    func collectionsOfAnInstanceBeingAddedReadTheirOwnValuesOnAnotherThread() throws {
        let store = try scratchStore()
        let employee = Employee()
        employee.firstName = "Ann"
        let rex = Dog(), fido = Dog()
        rex.name = "Rex"
        fido.name = "Fido"
        employee.dogs.append(contentsOf: [rex, fido])
        struct Seen: Sendable { var dogs: [String] = [], owners = -1 }
        func readOnAnotherThread() -> Seen {
            let seen = Locked(Seen()), done = DispatchSemaphore(value: 0)
            Thread {
                let dogs = employee.dogs.map(\.name)
                let owners = rex.person.count
                seen.withLock { $0 = Seen(dogs: dogs, owners: owners) }
                done.signal()
            }.start()
            done.wait()
            return seen.withLock { $0 }
        }
        try store.write {
            store.add(employee)
            employee.dogs.append(Dog())
            rex.name = "Rex II"
            let seen = readOnAnotherThread()
            #expect(seen.dogs == ["Rex", "Fido"])
            #expect(seen.owners == 0)
        }
        let seen = readOnAnotherThread()
        #expect(seen.dogs == ["Rex II", "Fido", ""])
        #expect(seen.owners == 1)
    }

    /// `add` moves an instance from its own values to the store's while
    /// other tasks read it: each read sees one or the other, never a torn
    /// location (the location is kept under the values' mutex).
    @Test(.timeLimit(.minutes(1)))
    func anUnmanagedObjectIsAddedWhileTasksReadIt() async throws {
        let store = try scratchStore()
        for round in 0..<20 {
            let gizmo = Gizmo()
            gizmo.id = round
            gizmo.name = "gizmo \(round)"
            let readers = (0..<4).map { _ in
                Task { () -> Bool in
                    var allMatched = true
                    for _ in 0..<200 {
                        allMatched = allMatched && gizmo.name == "gizmo \(round)" && gizmo.id == round
                        _ = gizmo.isManaged
                    }
                    return allMatched
                }
            }
            try store.write { store.add(gizmo) }
            for reader in readers { #expect(await reader.value) }
            #expect(gizmo.isManaged)
            #expect(store.object(ofType: Gizmo.self, forPrimaryKey: round)?.name == "gizmo \(round)")
        }
    }
}
