import Chronicle
import ChronicleTesting
import Foundation
import Synchronization
import Testing

/// A search box that saves the query once typing pauses: the debounce runs
/// on whatever clock it is given, the real one in the app.
final class SearchModel<C: Clock<Duration>>: Sendable {
    let store: Store
    let clock: C
    private let pending = PendingSearch()

    init(store: Store, clock: C) {
        self.store = store
        self.clock = clock
    }

    /// Saves `query` as a contact named after it 300 ms after the last keystroke.
    func type(_ query: String) {
        pending.replace(Task { [store, clock] in
            try await Task.sleep(for: .milliseconds(300), clock: clock)
            try await store.asyncWrite(label: "search") { store.add(contact(query)) }
        })
    }
}

/// The debounce task of a `SearchModel`, replaced on each keystroke.
final class PendingSearch: Sendable {
    private let task = Mutex<Task<Void, any Error>?>(nil)

    func replace(_ new: Task<Void, any Error>) {
        task.withLock { task in
            task?.cancel()
            task = new
        }
    }
}

@Suite("Test clock", .freshStore)
struct TestClockTests {
    let store = TestStore.current
    let clock = TestStore.clock

    @Test func aSleepEndsWhenTheTestMovesTheClockPastIt() async throws {
        let woke = Task { [clock] in
            try await Task.sleep(for: .seconds(10), clock: clock)
            return clock.now
        }
        await clock.waitForSleepers()
        await clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1, "still asleep a second early")
        await clock.advance(by: .seconds(1))
        let wokeAt = try await woke.value
        #expect(wokeAt == TestClock.Instant(offset: .seconds(10)))
        #expect(clock.sleeperCount == 0)
    }

    @Test func aDebounceRunsOnTheTestClock() async throws {
        let search = SearchModel(store: store, clock: clock)
        let contacts = StreamProbe(store.objects(Contact.self).changes())
        try await contacts.require(.initial)
        search.type("r")
        await clock.waitForSleepers()
        await clock.advance(by: .milliseconds(100))
        search.type("re")
        await clock.waitForSleepers()
        await clock.advance(by: .milliseconds(100))
        search.type("rex")
        await clock.waitForSleepers()
        await clock.advance(by: .milliseconds(299))
        await contacts.expectNoChange()
        await clock.advance(by: .milliseconds(1))
        let update = try await contacts.nextUpdate()
        #expect(update.collection.map(\.name) == ["rex"], "only the last keystroke was saved")
        // The commit is stamped with the clock's time: 500 ms after the start.
        let committed = try #require(Array(store.journalForReading.commits()).last)
        #expect(committed.timestamp == TestClock.defaultStart.addingTimeInterval(0.5))
    }

    @Test func commitTimestampsFollowTheClock() async throws {
        try store.write { store.add(Contact()) }
        await clock.advance(by: .seconds(3600))
        try store.write { store.add(Contact()) }
        let times = store.journalForReading.commits().map { $0.timestamp.timeIntervalSince(TestClock.defaultStart) }
        #expect(times == [0, 3601])
    }

    @Test func aCommitTakesAStepAndWakesWhatComesDue() async throws {
        let woke = Task { [clock] in try await Task.sleep(for: .milliseconds(500), clock: clock) }
        await clock.waitForSleepers()
        try store.write { store.add(Contact()) }   // one second passes
        try await woke.value
    }

    @Test func runFiresEverySleepInDeadlineOrder() async throws {
        let order = Task { [clock] in
            try await Task.sleep(for: .seconds(5), clock: clock)
            let first = clock.now
            try await Task.sleep(for: .seconds(5), clock: clock)
            return [first, clock.now]
        }
        await clock.waitForSleepers()
        await clock.run()
        let instants = try await order.value
        #expect(instants == [TestClock.Instant(offset: .seconds(5)), TestClock.Instant(offset: .seconds(10))])
    }

    @Test func cancellingASleepingTaskEndsItsSleep() async throws {
        let sleeper = Task { [clock] in try await Task.sleep(for: .seconds(60), clock: clock) }
        await clock.waitForSleepers()
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func waitingForASleepThatNeverComesFailsClearly() async {
        await withKnownIssue {
            await clock.waitForSleepers(2, timeout: .milliseconds(20))
        } matching: { issue in
            text(of: issue) == "Timed out after 0.02 seconds waiting for 2 sleeps on the test clock; 0 are waiting"
        }
    }

    @Test func modelDateDefaultsComeFromTheTestClock() async throws {
        #expect(Entry().bookedAt == TestClock.defaultStart)
        await clock.advance(by: .seconds(90))
        let later = Entry()
        #expect(later.bookedAt == TestClock.defaultStart.addingTimeInterval(90))
        #expect(clock.date == later.bookedAt, "reading the time for a default does not move the clock")
    }

    @Test func outsideAFreshStoreModelDatesAreTheWallClock() async throws {
        let before = Date()
        let booked = await Task.detached { Entry().bookedAt }.value
        #expect(booked >= before)
    }

    @Test func aReplayedStoreTakesTheTestClock() async throws {
        try store.write { store.add(contact("Ann")) }
        let replayClock = TestClock(start: Date(timeIntervalSince1970: 0))
        let replay = try Store.replaying(store.journalForReading, clock: replayClock.timestamp)
        try replay.store.write { replay.store.add(contact("Bob")) }
        let times = replay.store.journalForReading.commits().map(\.timestamp)
        #expect(times == [TestClock.defaultStart, Date(timeIntervalSince1970: 0)], "replayed commits keep their time")
    }
}
