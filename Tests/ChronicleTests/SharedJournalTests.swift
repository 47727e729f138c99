import ChronicleTesting
import Foundation
import Testing
@testable import Chronicle

/// The model every sharing test (and the ChronicleSharingChild helper
/// process) uses: the same class name, so the same table.
final class SharedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0
}
extension SharedItem: @unchecked Sendable {}

/// Issue 30: several stores (here in one process, each with its own file
/// descriptions and so its own locks, exactly as separate processes) share
/// one journal file.
@Suite("Sharing a journal between stores")
struct SharedJournalTests {
    static func open(_ url: URL, durability: Durability = .none) throws -> Store {
        try Store(configuration: .init(fileURL: url, durability: durability, objectTypes: [SharedItem.self]))
    }

    static func scores(_ store: Store) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: store.objects(SharedItem.self).map { ($0.id, $0.score) })
    }

    @Test func twoStoresTakeTurnsWithGapFreeVersionsAndEndAlike() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        for id in 0..<10 {
            let store = id.isMultiple(of: 2) ? a : b
            try store.write { store.create(SharedItem.self, value: ["id": id, "score": id * 10]) }
        }
        a.followOtherProcesses()
        b.followOtherProcesses()
        #expect(a.version == 11 && b.version == 11)  // the schema, then ten commits
        #expect(Array(a.journal.commits()).map(\.version) == Array(1...11))
        let expected = Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, $0 * 10) })
        #expect(Self.scores(a) == expected)
        #expect(Self.scores(b) == expected)
        #expect(a.committedState().isContentEqual(b.committedState()))
        let reopened = try Self.open(url)
        #expect(reopened.committedState().isContentEqual(a.committedState()))
    }

    @Test func aWriteCatchesUpFirstSoItsBodySeesTheOthersCommits() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        b.stopFollowing()  // only the write's own catch-up may bring a's commit in
        try a.write { a.create(SharedItem.self, value: ["id": 1, "score": 1]) }
        #expect(b.object(ofType: SharedItem.self, forPrimaryKey: 1) == nil)
        try b.write {
            let item = try #require(b.object(ofType: SharedItem.self, forPrimaryKey: 1))
            item.score += 1
        }
        try a.write { a.object(ofType: SharedItem.self, forPrimaryKey: 1)!.score += 1 }
        b.followOtherProcesses()
        #expect(Self.scores(a) == [1: 3])
        #expect(Self.scores(b) == [1: 3])
        // A duplicate primary key is caught against the caught-up state.
        #expect(throws: StoreError.self) {
            try b.write { b.create(SharedItem.self, value: ["id": 1]) }
        }
    }

    @Test func observersSeeOtherStoresCommitsFilteredWithOldValues() async throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        try a.write { a.create(SharedItem.self, value: ["id": 7, "name": "seven", "score": 1]) }
        b.followOtherProcesses()
        let item = try #require(b.object(ofType: SharedItem.self, forPrimaryKey: 7))
        let probe = StreamProbe(try item.changes(keyPaths: ["score"]))
        let inA = try #require(a.object(ofType: SharedItem.self, forPrimaryKey: 7))
        try a.write { inA.name = "renamed" }  // not observed
        try a.write { inA.score = 2 }
        // The store follows the file by itself: no call here.
        guard case .change(_, let properties)? = await probe.next(timeout: .seconds(10)) else {
            Issue.record("no change arrived")
            return
        }
        #expect(properties.map(\.name) == ["score"])
        #expect(properties.first?.oldValue as? Int == 1)
        #expect(properties.first?.newValue as? Int == 2)
        await probe.expectNoChange()
    }

    @Test func aTornTailIsCutByTheNextWriterNeverByAReader() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        b.stopFollowing()
        try a.write { a.create(SharedItem.self, value: ["id": 1]) }
        // What a writer killed mid-commit leaves: the start of a record.
        let torn = try JournalFormat.encodeRecord(Commit(version: 3, timestamp: Date(), events: []))
        let end = try Self.dataEnd(url)
        try Self.write(Array(torn.prefix(torn.count - 3)), to: url, at: end)
        let sizeWithTail = try JournalFixtures.bytes(url).count
        // Readers look, and leave it.
        let reader = try Journal(contentsOf: url)
        #expect(reader.lastVersion == 2)
        #expect(try reader.catchUp() == 2)
        b.followOtherProcesses()
        #expect(b.version == 2)
        #expect(try JournalFixtures.bytes(url).count == sizeWithTail)
        // The next writer cuts it under the lock and appends in its place.
        try b.write { b.create(SharedItem.self, value: ["id": 2]) }
        #expect(b.version == 3)
        #expect(try reader.catchUp() == 3)
        #expect(Array(reader.commits(from: 3)).first?.events.isEmpty == false)
        a.followOtherProcesses()
        #expect(Self.scores(a) == [1: 0, 2: 0])
    }

    @Test func aCommitBeingWrittenIsNotATornTailToAReader() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url)
        a.stopFollowing()
        let reader = try Journal(contentsOf: url)
        // Another writer's commit, written in two halves as a reader may see it.
        let journal = try Journal(sharedFileURL: url, durability: .none)
        try journal.lockForAppending()
        let record = try JournalFormat.encodeRecord(Commit(version: 2, timestamp: Date(), label: "by hand", events: []))
        let end = try Self.dataEnd(url)
        try Self.write(Array(record.prefix(record.count / 2)), to: url, at: end)
        #expect(try reader.catchUp() == 1)
        a.followOtherProcesses()
        #expect(a.version == 1)
        let opened = try Journal(contentsOf: url)  // opening while it is written: not cut, not damage
        #expect(opened.lastVersion == 1)
        try Self.write(Array(record.suffix(from: record.count / 2)), to: url, at: end + record.count / 2)
        journal.unlockAfterAppending()
        #expect(try reader.catchUp() == 2)
        #expect(Array(reader.commits(from: 2)).map(\.label) == ["by hand"])
        a.followOtherProcesses()
        #expect(a.version == 2)
        try a.write { a.create(SharedItem.self, value: ["id": 1]) }
        #expect(a.version == 3)
    }

    /// A store the app just dropped may close its journal a moment later,
    /// on the thread that held its last reference: compaction waits for it
    /// (``Store/fileAlonePatience``) rather than refusing.
    /// Waits up to 5 s for `condition`, looking every millisecond.
    static func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    #if os(Linux)
    /// A store alone with its journal is never woken by its own commits; a
    /// second store on the file wakes it with each of its commits, and the
    /// first store's observers see them.
    @Test func aStoreIsWokenByOtherJournalsCommitsOnly() async throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url)
        let area = try #require(a.journal.core.sharedArea)
        #expect(Self.eventually { area.ownSleepingFollowers == 1 })
        for id in 1...20 {
            try a.write { a.create(SharedItem.self, value: ["id": id, "score": 1]) }
        }
        // Asleep again (had a commit woken it, the count would show it by now).
        #expect(Self.eventually { area.ownSleepingFollowers == 1 })
        #expect(a.followerWakeUps == 0)

        let b = try Self.open(url)
        let item = try #require(a.object(ofType: SharedItem.self, forPrimaryKey: 1))
        let changes = item.changes(keyPaths: [\.score])
        // A's follower asleep, so that B's commit wakes it (a follower
        // between two sleeps finds the commit without being woken).
        #expect(Self.eventually { area.ownSleepingFollowers == 1 })
        try b.write { b.object(ofType: SharedItem.self, forPrimaryKey: 1)!.score = 2 }
        var iterator = changes.makeAsyncIterator()
        guard case .change(_, let properties)? = await iterator.next() else {
            Issue.record("no change delivered")
            return
        }
        #expect(properties.map(\.name) == ["score"])
        #expect(properties.first?.newValue as? Int == 2)
        #expect(Self.eventually { (a.followerWakeUps ?? 0) >= 1 })
        // Once B is gone (its follower's thread ends soon after the close),
        // A is alone again: its commits wake no one. B's follower, ending,
        // wakes every follower of the file, A's too: A's has handled that
        // wake-up once it sleeps again.
        let sleeps = try #require(a.followerSleeps)
        try b.close()
        #expect(Self.eventually {
            (a.followerSleeps ?? 0) > sleeps && area.sleepingFollowers == 1 && area.ownSleepingFollowers == 1
        })
        let wakeUps = try #require(a.followerWakeUps)
        for id in 21...30 {
            try a.write { a.create(SharedItem.self, value: ["id": id, "score": 1]) }
        }
        #expect(Self.eventually { area.ownSleepingFollowers == 1 })
        #expect(a.followerWakeUps == wakeUps)
    }
    #endif

    #if os(Linux)
    /// While its own store is busy with a write, a follower woken by another
    /// store's commit does not wait on the store: it looks again a moment
    /// later, not asleep on the appends meanwhile (so the other store's
    /// further commits wake no one), and once the write is over it folds
    /// and dispatches what it found, in order, then sleeps on the appends
    /// again.
    @Test(.timeLimit(.minutes(1)))
    func aFollowerDoesNotWaitForItsOwnStoresWrite() async throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        try a.write { a.create(SharedItem.self, value: ["id": 1, "score": 1]) }
        b.followOtherProcesses()
        let area = try #require(b.journal.core.sharedArea)
        let item = try #require(b.object(ofType: SharedItem.self, forPrimaryKey: 1))
        let probe = StreamProbe(try item.changes(keyPaths: ["score"]))
        let inA = try #require(a.object(ofType: SharedItem.self, forPrimaryKey: 1))
        #expect(Self.eventually { area.ownSleepingFollowers == 1 })
        let version = b.version

        Self.hold(b.writer)  // as a write of b's in progress does
        let looks = try #require(b.followerBusyLooks)
        try a.write { inA.score = 2 }
        #expect(Self.eventually { (b.followerBusyLooks ?? 0) >= looks + 3 })
        #expect(area.ownSleepingFollowers == 0)
        try a.write { inA.score = 3 }
        #expect(b.version == version)  // nothing folded under the write's feet
        b.writer.unlock()

        // Both commits, in order: one change each, or one for both if the
        // consumer was behind (the oldest old value, the newest new one).
        var seen = 1
        while seen != 3 {
            guard case .change(_, let properties)? = await probe.next(timeout: .seconds(10)) else {
                Issue.record("no change arrived after score \(seen)")
                return
            }
            #expect(properties.first?.oldValue as? Int == seen)
            seen = try #require(properties.first?.newValue as? Int)
        }
        #expect(b.version == version + 2)
        #expect(Self.eventually { area.ownSleepingFollowers == 1 })
    }

    /// Takes `lock` blocking (from an `async` test, `lock()` is the
    /// suspending one).
    static func hold(_ lock: WriterLock) { lock.lock() }

    /// A write first folds what other stores appended since its store's
    /// last write, and only then waits for the process lock: while another
    /// writer holds the lock, the waiting write's store already has the
    /// others' commits, and folds nothing more once it gets the lock.
    @Test func aWriteFoldsOthersCommitsBeforeItTakesTheProcessLock() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        try a.write { a.create(SharedItem.self, value: ["id": 1, "score": 1]) }
        b.followOtherProcesses()
        let inA = try #require(a.object(ofType: SharedItem.self, forPrimaryKey: 1))
        // b's follower stands aside (as while b writes), so only the write folds.
        b.writesUnderWay.begin()
        defer { b.writesUnderWay.end() }
        try a.write { inA.score = 2 }
        let version = b.version

        // Another writer (a journal of its own on the file) holds the process lock.
        let other = try Journal(sharedFileURL: url, durability: .none)
        try other.lockForAppending()
        let written = DispatchSemaphore(value: 0)
        Thread {
            _ = try? b.write { b.create(SharedItem.self, value: ["id": 2, "score": 0]) }
            written.signal()
        }.start()
        #expect(Self.eventually { b.version == version + 1 })
        #expect(b.object(ofType: SharedItem.self, forPrimaryKey: 1)?.score == 2)
        #expect(written.wait(timeout: .now()) == .timedOut)  // the write itself waits for the lock
        other.unlockAfterAppending()
        #expect(written.wait(timeout: .now() + 10) == .success)
        #expect(b.version == version + 2)
        #expect(Self.eventually { Self.scores(a) == [1: 2, 2: 0] })
    }
    #endif

    /// Stores opening a fresh file at once (as processes starting together
    /// do) register the object types once: registering is a write like
    /// any other, made after catching up under the process lock.
    @Test func storesOpeningAFreshFileAtOnceDefineItsTypesOnce() throws {
        let url = try JournalFixtures.journalURL()
        let opened = Locked<[Store]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            guard let store = try? Self.open(url) else { return }
            _ = try? store.write { store.create(SharedItem.self, value: ["id": index, "score": index]) }
            opened.withLock { $0.append(store) }
        }
        let stores = opened.withLock { $0 }
        try #require(stores.count == 4)
        let journal = try Journal(contentsOf: url)
        var definitions = 0, versions: [UInt64] = []
        for commit in journal.commits(from: 1) {
            versions.append(commit.version)
            for case .defineType(let type) in commit.events where type.name == "SharedItem" { definitions += 1 }
        }
        #expect(definitions == 1)
        #expect(versions == Array(1...UInt64(versions.count)))
        for store in stores { store.followOtherProcesses() }
        for store in stores { #expect(Self.scores(store) == [0: 0, 1: 1, 2: 2, 3: 3]) }
    }

    /// Stores on one file write its checkpoint file one at a time (a lock
    /// of its own): written by two stores at once, again and again, while a
    /// third thread commits, every write succeeds (neither removes the
    /// other's temporary file as a leftover), and the file left is one
    /// whole checkpoint of the journal, its state the fold of the journal
    /// up to its version.
    @Test func storesOnOneFileWriteTheCheckpointFileOneAtATime() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        try a.write { for id in 0..<300 { a.create(SharedItem.self, value: ["id": id, "score": 0]) } }
        b.followOtherProcesses()
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for round in 0..<15 {
                switch worker {
                case 0, 1:
                    do { try (worker == 0 ? a : b).writeCheckpoint() } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                default:
                    let store = round.isMultiple(of: 2) ? a : b
                    try? store.write { store.object(ofType: SharedItem.self, forPrimaryKey: round)?.score = round + 1 }
                }
            }
        }
        // Neither took the other's temporary file from under it.
        #expect(failures.withLock { $0 } == [])
        let journal = try Journal(contentsOf: url)
        let bytes = try [UInt8](Data(contentsOf: CheckpointFile.url(for: url)))
        let restored = try CheckpointFile.decode(bytes, journal: journal).get()
        #expect(restored._invariantViolations() == [])
        var folded = StoreState()
        for commit in journal.commits(from: 1) where commit.version <= restored.version {
            folded = try folded.applying(commit).state
        }
        #expect(folded.version == restored.version)
        #expect(restored.isContentEqual(folded))
    }

    /// A migration one store makes reaches another store on the file that
    /// still has the classes from before (another process running an older
    /// build): it folds the migration's commit like any other, and its next
    /// use of a class the migration changed stops the process with the
    /// schema check's message (reading on would give wrong values), while
    /// the migrated store goes on. What a store does with a class that
    /// does not match the file, whoever migrated it.
    @Test func aStoreWithTheClassesFromBeforeStopsAfterAnotherMigrates() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = try PetJournal.versionOne()
            let old = try Store(configuration: .init(fileURL: url, durability: .none,
                                                     objectTypes: [PetV1.Pet.self, PetV1.Owner.self]))
            let new = try Store(configuration: MigrationTests.configuration(url, version: 1,
                                                                            types: [PetColor.Pet.self, PetColor.Owner.self]) { migration, _ in
                migration.enumerateObjects(ofType: "Pet") { _, new in new?["color"] = .string("black") }
            })
            precondition(new.objects(PetColor.Pet.self).map(\.color) == ["black", "black"])
            old.followOtherProcesses()
            precondition(old.version == new.version)
            _ = old.object(ofType: PetV1.Pet.self, forPrimaryKey: 1)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the class Pet cannot read this store"))
        #expect(message.contains("the journal has property 'color' (String), which the class no longer declares"))
    }

    @Test func compactionWaitsForAStoreThatIsClosing() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url)
        // The second store's only reference, which a thread drops 20 ms from now.
        final class LastReference: @unchecked Sendable { // written once, by that thread, after it starts
            var store: Store?
            init(_ store: Store) { self.store = store }
        }
        let last = LastReference(try Self.open(url))
        try a.write { a.create(SharedItem.self, value: ["id": 1]) }
        Thread {
            Thread.sleep(forTimeInterval: 0.02)
            last.store = nil
        }.start()
        let version = a.version
        try a.compact()
        #expect(a.journal.baseVersion == version - 1)
        try a.write { a.create(SharedItem.self, value: ["id": 2]) }
        #expect(Self.scores(a) == [1: 0, 2: 0])
    }

    /// The follower's thread keeps its handler until it next wakes, after
    /// the store has gone; the handler holds neither the state nor the
    /// journal, so the last reference going frees both on the thread that
    /// drops it, at once (a state of 1M objects was otherwise still being
    /// freed on the follower's thread while the next open folded).
    @Test func droppingAStoreFreesItsStateAndClosesItsJournalAtOnce() throws {
        let url = try JournalFixtures.journalURL()
        weak var published: Locked<PublishedState>?
        weak var core: JournalCore?
        do {
            let store = try Self.open(url)
            try store.write { store.create(SharedItem.self, value: ["id": 1]) }
            #expect(store.followerSleeps != nil)  // it follows the file
            published = store.published
            core = store.journal.core
            #expect(published != nil && core != nil)
        }
        #expect(published == nil)
        #expect(core == nil)
    }

    /// The follower reaches its store through a `StoreRelay`, not a weak
    /// reference: the first weak reference would move the store's counts
    /// to a side table, and every retain and release of the store (a
    /// look-up, an `add`) would take the runtime's slow path.
    @Test func aFollowingStoreKeepsItsReferenceCountsInline() throws {
        try #require(InlineReferenceCount.isVerified, "the inline counts are read on 64-bit runtimes only")
        let url = try JournalFixtures.journalURL()
        let store = try Self.open(url)
        #expect(store.followerSleeps != nil)  // it follows the file
        let pointer = Unmanaged.passUnretained(store).toOpaque()
        #expect(InlineReferenceCount.word(of: pointer) != nil, "the store's counts moved to a side table")
        withExtendedLifetime(store) {}
    }

    /// What the relay answers: the store while it lives, `nil` once its
    /// `deinit` has begun (it retires the relay), and a store it hands out
    /// is held as by any owner.
    @Test func theRelayReachesTheStoreOnlyWhileItLives() throws {
        let url = try JournalFixtures.journalURL()
        var relay: StoreRelay?
        weak var dropped: Store?
        do {
            let store = try Self.open(url)
            relay = store.followRelay
            let reached = try #require(relay?.store())
            #expect(reached === store)
            dropped = store
        }
        #expect(dropped == nil, "the relay kept the store alive")
        #expect(relay?.store() == nil)
        let unattached = StoreRelay()
        #expect(unattached.store() == nil)
    }

    @Test func compactionIsRefusedWhileAnotherStoreHasTheJournalOpen() throws {
        let url = try JournalFixtures.journalURL()
        let a = try Self.open(url), b = try Self.open(url)
        try a.write { a.create(SharedItem.self, value: ["id": 1]) }
        let before = try JournalFixtures.bytes(url)
        #expect {
            try a.compact()
        } throws: { error in
            guard case StoreError.sharedWithOtherProcesses(let operation) = error else { return false }
            return operation == "compact()" && "\(error)".contains("Close the store in the other processes")
        }
        #expect(try JournalFixtures.bytes(url) == before)
        // Refusing gave the file back: the others write, and others open.
        try b.write { b.create(SharedItem.self, value: ["id": 2]) }
        let c = try Self.open(url)
        #expect(c.version == 3)
        try b.close()
        try c.close()
        try a.compact()
        #expect(a.journal.baseVersion == 2)
        try a.write { a.create(SharedItem.self, value: ["id": 3]) }
        let d = try Self.open(url)
        #expect(Self.scores(d) == [1: 0, 2: 0, 3: 0])
        try d.write { d.create(SharedItem.self, value: ["id": 4]) }
        a.followOtherProcesses()
        #expect(Self.scores(a).count == 4)
    }

    @Test func anExclusiveWriterAndSharingStoresExcludeEachOther() throws {
        let url = try JournalFixtures.journalURL()
        let store = try Self.open(url)
        #expect(JournalFixtures.journalError { try Journal(fileURL: url) } == .locked(url))
        try store.close()
        let exclusive = try Journal(fileURL: url)
        #expect(JournalFixtures.journalError { try Journal(sharedFileURL: url) } == .locked(url))
        try exclusive.close()
        #expect(try Journal(sharedFileURL: url).lastVersion == 1)
    }

    @Test func sharedJournalsNumberAppendsAfterCatchingUp() throws {
        let url = try JournalFixtures.journalURL()
        let first = try Journal(sharedFileURL: url, durability: .none)
        let second = try Journal(sharedFileURL: url, durability: .none)
        #expect(first.isShared && second.isShared)
        try first.append(JournalFixtures.commit(1))
        // The second catches up before it appends: version 1 is taken.
        #expect(JournalFixtures.journalError { try second.append(JournalFixtures.commit(1)) } == .versionMismatch(expected: 2, found: 1))
        try second.append(JournalFixtures.commit(2))
        #expect(try first.catchUp() == 2)
        #expect(Array(first.commits()) == [JournalFixtures.commit(1), JournalFixtures.commit(2)])
        #expect(try first.waitForCommits(after: 1, timeout: .zero))
        #expect(try !first.waitForCommits(after: 2, timeout: .milliseconds(20)))
        try first.close()
        #expect(throws: JournalError.closed) { try first.catchUp() }
    }

    /// Opening for writing syncs what a crashed writer may have left in
    /// the page cache; a sharing open skips that sync when the shared area
    /// records one of this file that ended exactly at its end.
    @Test func aSharingOpenSyncsOnlyWhatNoRecordedSyncCovered() throws {
        let url = try JournalFixtures.journalURL()
        let writer = try Journal(sharedFileURL: url, durability: .none)
        #expect(writer.syncedAtOpen)  // a new file: nothing recorded yet
        #expect(try !Journal(sharedFileURL: url, durability: .none).syncedAtOpen)
        try writer.append(JournalFixtures.commit(1))  // written, not synced
        let afterAppend = try Journal(sharedFileURL: url, durability: .none)
        #expect(afterAppend.syncedAtOpen)
        #expect(try !Journal(sharedFileURL: url, durability: .none).syncedAtOpen)  // that open's sync covers it
        try writer.append(JournalFixtures.commit(2))
        try writer.sync()
        #expect(try !Journal(sharedFileURL: url, durability: .none).syncedAtOpen)  // the writer's sync covers it
        try writer.append(JournalFixtures.commit(3))
        try writer.close()  // with no durability, closing syncs nothing
        try afterAppend.close()
        let reopened = try Journal(sharedFileURL: url, durability: .none)
        #expect(reopened.syncedAtOpen)
        #expect(reopened.lastVersion == 3)
        try reopened.close()
        // An exclusive open always syncs.
        #expect(try Journal(fileURL: url, durability: .none).syncedAtOpen)
    }

    /// A copy of the journal put back over it (the same file identifier,
    /// shorter) does not inherit the longer file's synced end: the open
    /// syncs, and the ends start again from the file's own end.
    @Test func aJournalPutBackShorterIsSyncedAtOpen() throws {
        let url = try JournalFixtures.journalURL()
        let writer = try Journal(sharedFileURL: url, durability: .full)
        try writer.append(JournalFixtures.commit(1))
        try writer.close()
        let copy = try JournalFixtures.bytes(url)
        let longer = try Journal(sharedFileURL: url, durability: .full)
        #expect(!longer.syncedAtOpen)
        try longer.append(JournalFixtures.commit(2))
        try longer.append(JournalFixtures.commit(3))
        try longer.close()
        try JournalFixtures.write(copy, to: url)  // the area still says synced through version 3
        let restored = try Journal(sharedFileURL: url, durability: .none)
        #expect(restored.syncedAtOpen)
        #expect(restored.lastVersion == 1)
        try restored.close()
        #expect(try !Journal(sharedFileURL: url, durability: .none).syncedAtOpen)
    }

    /// Zeros after the last record, while another journal has the file
    /// open, are the space that journal reserved ahead: a sharing open
    /// leaves them (no torn tail, no sync), appends of either journal use
    /// them, and only the last journal to close cuts them.
    @Test func aSharingOpenLeavesTheSpaceAnOpenJournalReserved() throws {
        let url = try JournalFixtures.journalURL()
        let writer = try Journal(sharedFileURL: url, durability: .full)
        try writer.append(JournalFixtures.commit(1))
        let reserved = try JournalReservationTests.fileSize(url)
        #expect(try reserved > Self.dataEnd(url))
        let other = try Journal(sharedFileURL: url, durability: .full)
        #expect(other.discardedTailBytes == 0)
        #expect(!other.syncedAtOpen)  // the writer's sync ended at the data's end
        #expect(try JournalReservationTests.fileSize(url) == reserved)
        try other.append(JournalFixtures.commit(2))
        try writer.append(JournalFixtures.commit(3))
        #expect(try JournalReservationTests.fileSize(url) == reserved)  // both wrote into the space
        try writer.close()
        #expect(try JournalReservationTests.fileSize(url) == reserved)  // the other still uses it
        try other.append(JournalFixtures.commit(4))
        try other.close()
        let end = try Self.dataEnd(url)
        #expect(try JournalReservationTests.fileSize(url) == end)
        let reader = try Journal(contentsOf: url)
        #expect(reader.lastVersion == 4 && reader.discardedTailBytes == 0)
        #expect(try JournalFixtures.readAll(reader).map(\.version) == [1, 2, 3, 4])
    }

    /// Zeros that no open journal uses (a writer killed before it closed
    /// left them) are cut by a sharing open, and are no torn tail either.
    @Test func aSharingOpenAloneCutsLeftOverReservedSpace() throws {
        let url = try JournalFixtures.journalURL()
        let writer = try Journal(sharedFileURL: url, durability: .full)
        try writer.append(JournalFixtures.commit(1))
        let end = try Self.dataEnd(url)
        let left = try JournalFixtures.bytes(url)  // the file as a killed writer leaves it
        #expect(left.count > end && left[end...].allSatisfy { $0 == 0 })
        try writer.close()
        try JournalFixtures.write(left, to: url)
        let reopened = try Journal(sharedFileURL: url, durability: .full)
        #expect(reopened.discardedTailBytes == 0 && reopened.lastVersion == 1)
        #expect(try JournalReservationTests.fileSize(url) == end)
        try reopened.close()
        // Garbage after the zeros' start is a torn tail, cut and counted.
        var torn = left
        torn[end] = 7
        try JournalFixtures.write(torn, to: url)
        let afterTear = try Journal(sharedFileURL: url, durability: .full)
        #expect(afterTear.discardedTailBytes == left.count - end && afterTear.lastVersion == 1)
        #expect(try JournalReservationTests.fileSize(url) == end)
        try afterTear.close()
    }

    // MARK: Helpers

    /// Where the journal's data ends (a store's reserved zeros follow it).
    static func dataEnd(_ url: URL) throws -> Int {
        try Journal(contentsOf: url).core.state.withLock { $0.end }
    }

    static func write(_ bytes: [UInt8], to url: URL, at offset: Int) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data(bytes))
    }
}

@Suite("Sharing a journal: concurrency")
struct SharedJournalConcurrencyTests {
    @Test func storesOnOneFileWriteFromSeveralThreadsAtOnce() async throws {
        let url = try JournalFixtures.journalURL()
        let stores = try (0..<2).map { _ in try SharedJournalTests.open(url, durability: .full) }
        let perThread = 25
        await withTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                for thread in 0..<2 {
                    group.addTask {
                        let id = index * 2 + thread
                        for round in 1...perThread {
                            _ = try? store.write {
                                store.create(SharedItem.self, value: ["id": id, "score": round], update: .modified)
                            }
                        }
                    }
                }
            }
        }
        for store in stores { store.followOtherProcesses() }
        let total = UInt64(1 + 4 * perThread)
        #expect(stores.allSatisfy { $0.version == total })
        #expect(Array(stores[0].journal.commits()).map(\.version) == Array(1...total))
        #expect(SharedJournalTests.scores(stores[0]) == [0: perThread, 1: perThread, 2: perThread, 3: perThread])
        #expect(stores[0].committedState().isContentEqual(stores[1].committedState()))
    }
}
