import Foundation
import Testing
@testable import Chronicle

/// A stand-in for a crash: thrown by the compaction's fault-injection seam.
private let simulatedCrash = JournalError.io(operation: "simulated crash", errno: 0, path: "")

@Suite("Compaction")
struct CompactionTests {
    /// A file store with links (a cycle of friends), embedded objects,
    /// collections, primary keys, updates and deletes — including the object
    /// with the largest key of its table, so the next key matters.
    static func populatedStore(_ url: URL) throws -> Store {
        let store = try Store(configuration: .init(fileURL: url, durability: .none))
        let people = (0..<6).map { index -> Person in
            let person = Person()
            person.firstName = "P\(index)"
            person.address = Address()
            person.address?.city = "City \(index)"
            return person
        }
        try store.write { store.add(people) }
        // The cycle is made between managed objects (a cycle of unmanaged
        // objects would be a strong reference cycle, as for any Swift objects).
        try store.write {
            for (index, person) in people.enumerated() { person.friends.append(people[(index + 1) % people.count]) }
        }
        for round in 0..<20 {
            try store.write { people[round % 5].lastName = "L\(round)" }
        }
        try store.write {
            let counter = Counter()
            counter.id = 7
            store.add(counter)
            let all = AllTypes()
            all.id = 1
            all.tags.insert("a")
            all.scores["x"] = 1
            all.numbers.append(contentsOf: [1, 2, 3])
            store.add(all)
        }
        try store.write { store.delete(people[5]) }
        try store.write { store.objects(Counter.self).first!.value = 42 }
        return store
    }

    static func contentEqual(_ a: StoreState, _ b: StoreState) -> Bool {
        a.version == b.version && a.isContentEqual(b)
    }

    @Test func stateIsIdenticalBeforeAndAfterAndAfterReopening() throws {
        let url = try JournalFixtures.journalURL()
        var store: Store? = try Self.populatedStore(url)
        let before = store!.committedState()
        let sizeBefore = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        try store!.compact()
        #expect(Self.contentEqual(store!.committedState(), before))
        let sizeAfter = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
        #expect(sizeAfter < sizeBefore)
        #expect(store!.journal.baseVersion == before.version - 1)
        #expect(store!.objects(Person.self).count == 5)
        #expect(store!.objects(Person.self).first?.friends.first?.firstName == "P1")
        store = nil
        let reopened = try Store(configuration: .init(fileURL: url, durability: .none))
        #expect(Self.contentEqual(reopened.committedState(), before))
        let journal = reopened.journal
        let commits = Array(journal.commits())
        #expect(commits.count == 1)
        #expect(commits[0].version == before.version)
        #expect(commits[0].label == StoreState.compactionLabel)
        #expect(StoreState.isSnapshot(commits[0]))
    }

    @Test func versionsContinueAfterCompactionAndKeysAreNotReused() throws {
        let url = try JournalFixtures.journalURL()
        var store: Store? = try Self.populatedStore(url)
        let version = store!.version
        let deletedKey = store!.committedState().nextKey(table: store!.committedState().tableIndex(named: "Person")!)
        try store!.compact()
        try store!.write { store!.add(Person()) }
        #expect(store!.version == version + 1)
        #expect(store!.objects(Person.self).last!.location!.key.rawValue >= deletedKey.rawValue)
        let after = store!.committedState()
        store = nil
        let reopened = try Store(configuration: .init(fileURL: url, durability: .none))
        #expect(Self.contentEqual(reopened.committedState(), after))
        try reopened.write { reopened.objects(Person.self).first!.firstName = "again" }
        #expect(reopened.version == version + 2)
        // Compacting a compacted journal works too.
        try reopened.compact()
        #expect(reopened.journal.baseVersion == version + 1)
        try reopened.write { reopened.objects(Person.self).first!.firstName = "once more" }
        #expect(reopened.version == version + 3)
    }

    @Test func keepingTheLastCommits() throws {
        let url = try JournalFixtures.journalURL()
        var store: Store? = try Self.populatedStore(url)
        let before = store!.committedState()
        try store!.compact(keepingLast: 3)
        #expect(Self.contentEqual(store!.committedState(), before))
        let commits = Array(store!.journal.commits())
        #expect(commits.map(\.version) == Array((before.version - 3)...before.version))
        #expect(StoreState.isSnapshot(commits[0]))
        #expect(!commits.dropFirst().contains(where: StoreState.isSnapshot))
        store = nil
        let reopened = try Store(configuration: .init(fileURL: url, durability: .none))
        #expect(Self.contentEqual(reopened.committedState(), before))
        // Asking for more history than the journal has keeps all of it after its first commit.
        try reopened.compact(keepingLast: 1000)
        #expect(Self.contentEqual(reopened.committedState(), before))
        #expect(Array(reopened.journal.commits()).count == 4)
    }

    @Test(arguments: FileReplacementStep.allCases)
    func aCrashAfterAnyStepLeavesAJournalThatOpensToTheSameState(step: FileReplacementStep) throws {
        let url = try JournalFixtures.journalURL("crash\(step.rawValue)")
        var store: Store? = try Self.populatedStore(url)
        let before = store!.committedState()
        #expect(throws: StoreError.self) {
            try store!.compact(keepingLast: step.rawValue) { (done) throws(JournalError) in
                if done == step { throw simulatedCrash }
            }
        }
        store = nil // the "process" dies: its journal closes
        let reopened = try Store(configuration: .init(fileURL: url, durability: .none))
        #expect(Self.contentEqual(reopened.committedState(), before))
        // The old journal (before the rename) or the new one (after it).
        #expect(reopened.journal.baseVersion == (step.rawValue >= FileReplacementStep.renamed.rawValue ? before.version - UInt64(step.rawValue) - 1 : 0))
        try reopened.write { reopened.objects(Person.self).first!.firstName = "after the crash" }
        #expect(reopened.version == before.version + 1)
    }

    @Test func theLiveStoreKeepsWorkingAndObservingAcrossCompaction() async throws {
        let url = try JournalFixtures.journalURL()
        let store = try Self.populatedStore(url)
        let person = store.objects(Person.self).first!
        let changes = person.changes(keyPaths: [\.firstName])
        try store.compact()
        try store.write { person.firstName = "observed" }
        var iterator = changes.makeAsyncIterator()
        guard case .change(_, let properties)? = await iterator.next() else {
            Issue.record("no change delivered")
            return
        }
        #expect(properties.map(\.name) == ["firstName"])
        #expect(person.firstName == "observed")
    }

    @Test func snapshotHeadersRoundTripAndOldHeadersStayVersionOne() throws {
        let v1 = JournalFormat.makeHeader()
        #expect(v1.count == JournalFormat.headerSize)
        #expect(v1[8] == 1)
        let v2 = JournalFormat.makeHeader(baseVersion: 0x0102_0304_0506)
        #expect(v2.count == JournalFormat.versionTwoHeaderSize)
        let parsed = try JournalFormat.parseHeader(v2, fileSize: 100, url: URL(fileURLWithPath: "/x"))
        #expect(parsed.baseVersion == 0x0102_0304_0506)
        #expect(parsed.size == 40)
        var damaged = v2
        damaged[30] ^= 1
        #expect(throws: JournalError.self) { try JournalFormat.parseHeader(damaged, fileSize: 100, url: URL(fileURLWithPath: "/x")) }
    }
}
