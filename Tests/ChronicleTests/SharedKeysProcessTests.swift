import Foundation
import Testing
@testable import Chronicle

/// Keys a write that rolled back bound its instances to are never handed
/// out again by another process sharing the store: the instance reads as
/// invalidated meanwhile, and adding it again creates its own object,
/// never reading or overwriting the other process's.
@Suite("Rolled-back keys across processes", .serialized)
struct SharedKeysProcessTests {
    struct Rollback: Error {}

    /// An instance added by a write that rolled back, in `store`.
    static func rolledBackItem(in store: Store) throws -> SharedItem {
        let mine = SharedItem()
        mine.id = 1
        mine.name = "mine"
        mine.score = 100
        #expect(throws: Rollback.self) {
            try store.write {
                store.add(mine)
                throw Rollback()
            }
        }
        return mine
    }

    @Test(.timeLimit(.minutes(2)))
    func anotherProcessNeverTakesTheKeyOfAnAddThatRolledBack() throws {
        let url = try JournalFixtures.journalURL()
        let store = try SharedJournalTests.open(url)
        let helper = try SharingProcess(url)
        let mine = try Self.rolledBackItem(in: store)
        #expect(mine.isInvalidated)
        // The helper adds an object of the same type after the rollback.
        #expect(helper.run("create 2 20") == "ok 2")
        let deadline = Date().addingTimeInterval(20)
        while store.version < 2 && Date() < deadline { usleep(1000) }
        #expect(store.version == 2)
        // Not the helper's object: still an add that rolled back.
        #expect(mine.isInvalidated)
        // Added again, it is an object of its own; the helper's is untouched.
        try store.write { store.add(mine) }
        #expect(!mine.isInvalidated)
        #expect(mine.id == 1 && mine.name == "mine")
        #expect(SharedJournalTests.scores(store) == [1: 100, 2: 20])
        #expect(helper.run("wait 3", answer: "version") == "version 3")
        #expect(helper.run("state", answer: "state") == "state 3 1:100:mine,2:20:")
        helper.quit()
    }

    @Test func anotherStoreOnTheFileNeverTakesTheKeyOfAnAddThatRolledBack() throws {
        let url = try JournalFixtures.journalURL()
        let a = try SharedJournalTests.open(url), b = try SharedJournalTests.open(url)
        let mine = try Self.rolledBackItem(in: a)
        try b.write { b.create(SharedItem.self, value: ["id": 2, "score": 20]) }
        a.followOtherProcesses()
        #expect(mine.isInvalidated)
        try a.write { a.add(mine) }
        b.followOtherProcesses()
        #expect(SharedJournalTests.scores(a) == [1: 100, 2: 20])
        #expect(SharedJournalTests.scores(b) == [1: 100, 2: 20])
    }
}
