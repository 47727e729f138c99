#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization
import Testing
@testable import Chronicle

/// A full disk and failed I/O at the level of a ``Store`` with objects.
///
/// A write that cannot reach the journal throws ``StoreError/journal(_:)``
/// and is *not* published: the store keeps serving the last committed state.
/// A failed *sync* happens after the commit was written and published (the
/// writer releases the store before waiting for durability, so concurrent
/// committers share one sync), so the store keeps that state but the write
/// still throws: the commit may or may not survive a crash. Either way the
/// journal is failed, later writes throw ``JournalError/failed(reason:)``,
/// reads keep working, and reopening gives a consistent store that accepts
/// writes again.
@Suite("Store: full disk and failed I/O")
struct StoreFailureTests {
    static func storeURL(_ name: String = #function) throws -> URL {
        try JournalFixtures.temporaryDirectory(name).appendingPathComponent("store.journal")
    }

    static func counters(_ store: Store) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: store.objects(Counter.self).map { ($0.id, $0.value) })
    }

    /// The state a store folds from its journal equals the state it holds.
    static func expectConsistent(_ store: Store, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let refolded = try Store.fold(store.journal)
        #expect(refolded.isContentEqual(store.committedState()), sourceLocation: sourceLocation)
        #expect(refolded.version == store.version, sourceLocation: sourceLocation)
        #expect(store.committedState()._invariantViolations().isEmpty, sourceLocation: sourceLocation)
    }

    /// A real `EFBIG`: a child process lowers its file-size limit (with
    /// `SIGXFSZ` ignored) a little above the journal's size, commits what
    /// fits, then a commit that does not.
    @Test func aCommitPastTheFileSizeLimitThrowsDiskFullAndIsNotPublished() async throws {
        let url = try Self.storeURL()
        do {
            let store = try Store(configuration: .init(fileURL: url))
            try store.write {
                for id in 0..<10 { store.create(Counter.self, value: ["id": id, "value": id]) }
            }
        }
        let size = try JournalFixtures.bytes(url).count
        await #expect(processExitsWith: .success) { [path = url.path as String, size = size as Int] in
            signal(SIGXFSZ, SIG_IGN)
            var limit = rlimit(rlim_cur: rlim_t(size + 4096), rlim_max: rlim_t(size + 4096))
            #if canImport(Glibc)
            guard setrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limit) == 0 else { exit(10) }
            #else
            guard setrlimit(RLIMIT_FSIZE, &limit) == 0 else { exit(10) }
            #endif
            guard let store = try? Store(configuration: .init(fileURL: URL(fileURLWithPath: path))) else { exit(11) }
            guard let first = store.object(ofType: Counter.self, forPrimaryKey: 0) else { exit(12) }
            // Small commits fit.
            for round in 1...3 {
                guard (try? store.write { first.value = round }) != nil else { exit(13) }
            }
            let version = store.version
            let changes = first.changes()  // registered: a published commit would be buffered for it
            // A commit that does not fit: 100 KB of text in a new object and an update.
            let big = Person()
            big.firstName = String(repeating: "x", count: 100_000)
            do {
                try store.write {
                    store.add(big)
                    first.value = 999
                }
                exit(14)
            } catch StoreError.journal(.diskFull(_, let code)) {
                guard code == EFBIG else { exit(15) }
            } catch { exit(16) }
            // Not published: the store still serves the last committed state.
            guard store.version == version, first.value == 3, store.objects(Person.self).isEmpty,
                  store.objects(Counter.self).count == 10 else { exit(17) }
            guard store.observers.count == 1, changes.subscription.observer.buffer.pendingCount == 0 else { exit(18) }
            // The journal is failed: later writes throw, even small ones.
            do {
                try store.write { first.value = 4 }
                exit(19)
            } catch StoreError.journal(.failed) {
            } catch { exit(20) }
            guard first.value == 3, store.version == version else { exit(21) }
            withExtendedLifetime(changes) {}
            exit(0)
        }
        // After the limit is lifted: consistent, nothing committed is lost, writes work.
        let store = try Store(configuration: .init(fileURL: url))
        try Self.expectConsistent(store)
        var expected = Dictionary(uniqueKeysWithValues: (0..<10).map { ($0, $0) })
        expected[0] = 3
        #expect(Self.counters(store) == expected)
        #expect(store.objects(Person.self).isEmpty)
        let big = Person()
        big.firstName = String(repeating: "x", count: 100_000)
        try store.write { store.add(big) }
        #expect(store.objects(Person.self).first?.firstName.count == 100_000)
        try store.journal.close()
        let reopened = try Store(configuration: .init(fileURL: url))
        try Self.expectConsistent(reopened)
        #expect(reopened.objects(Person.self).count == 1)
    }

    /// A failed write through the fault-injection seam: same contract, in-process.
    @Test func aFailedJournalWriteRollsTheStoreBack() throws {
        let url = try Self.storeURL()
        let store = try Store(configuration: .init(fileURL: url))
        try store.write { store.create(Counter.self, value: ["id": 1, "value": 1]) }
        let counter = try #require(store.object(ofType: Counter.self, forPrimaryKey: 1))
        store.journal.faultInjection = FaultInjection(beforeWrite: { (_: UInt64) throws(JournalError) in
            throw .diskFull(path: "simulated", errno: ENOSPC)
        })
        #expect {
            try store.write { counter.value = 2 }
        } throws: { error in
            guard case StoreError.journal(.diskFull(_, ENOSPC)) = error else { return false }
            return true
        }
        #expect(counter.value == 1)
        #expect(store.version == 1)  // the one write that succeeded (it also defined the schema)
        store.journal.faultInjection = nil
        #expect {
            try store.write { counter.value = 3 }
        } throws: { error in
            guard case StoreError.journal(.failed) = error else { return false }
            return true
        }
        try store.journal.close()
        let reopened = try Store(configuration: .init(fileURL: url))
        try Self.expectConsistent(reopened)
        #expect(Self.counters(reopened) == [1: 1])
        try reopened.write { reopened.object(ofType: Counter.self, forPrimaryKey: 1)!.value = 4 }
        #expect(Self.counters(reopened) == [1: 4])
    }

    /// A failed sync: the commit was written and published before the sync
    /// (documented), so the store shows it, the write throws, observers saw it,
    /// and the journal is failed. After reopening, the store holds a prefix
    /// of the commits (here all of them: the bytes reached the file) and is
    /// consistent.
    @Test(arguments: [Durability.full, .batched(maxDelay: .seconds(5), maxCommits: 1)])
    func aFailedSyncThrowsAfterPublishingAndFailsTheJournal(durability: Durability) async throws {
        let url = try Self.storeURL()
        let store = try Store(configuration: .init(fileURL: url, durability: durability))
        try store.write { store.create(Counter.self, value: ["id": 1, "value": 1]) }
        let counter = try #require(store.object(ofType: Counter.self, forPrimaryKey: 1))
        var changes = counter.changes(keyPaths: [\.value]).makeAsyncIterator()
        let syncs = Atomic<Int>(0)
        store.journal.faultInjection = FaultInjection(beforeSync: { () throws(JournalError) in
            syncs.add(1, ordering: .relaxed)
            throw .io(operation: "fdatasync", errno: EIO, path: "simulated")
        })
        #expect {
            try store.write { counter.value = 2 }
        } throws: { error in
            guard case StoreError.journal(.io("fdatasync", EIO, _)) = error else { return false }
            return true
        }
        #expect(syncs.load(ordering: .relaxed) == 1)
        #expect(counter.value == 2, "the commit was published before the sync failed")
        guard case .change(_, let properties)? = await changes.next() else {
            Issue.record("observers see the published commit")
            return
        }
        #expect(properties.first?.newValue as? Int == 2)
        #expect {
            try store.write { counter.value = 3 }
        } throws: { error in
            guard case StoreError.journal(.failed) = error else { return false }
            return true
        }
        #expect(syncs.load(ordering: .relaxed) == 1, "a failed sync is never retried")
        #expect(counter.value == 2)
        store.journal.faultInjection = nil
        try? store.journal.close()

        let reopened = try Store(configuration: .init(fileURL: url))
        try Self.expectConsistent(reopened)
        let value = try #require(reopened.object(ofType: Counter.self, forPrimaryKey: 1)?.value)
        #expect(value == 1 || value == 2, "a prefix of the commits")
        try reopened.write { reopened.object(ofType: Counter.self, forPrimaryKey: 1)!.value = 5 }
        #expect(Self.counters(reopened) == [1: 5])
    }
}
