import Foundation
import Testing
@testable import Chronicle

/// Issue 29: an empty device joining a scope takes the server's snapshot
/// as its journal's start (`Store.syncAdopt`, the package hook
/// `ChronicleSync` bootstraps with), instead of creating every object again.
@Suite("Sync bootstrap: a snapshot as the start of an empty store's journal")
struct SyncAdoptionTests {
    static let types: [ObjectBase.Type] = [Counter.self, Person.self]

    static func fileURL() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-adopt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("device.journal")
    }

    /// A scope's snapshot, as a server builds it, and its fold: 50 counters and
    /// 10 people (when `types` has them) in a cycle of friends, each with an address.
    static func scope(types: [ObjectBase.Type] = types) throws -> (snapshot: Commit, state: StoreState) {
        let scope = try Store(configuration: .inMemory(identifier: "scope-\(UUID())", objectTypes: types))
        try scope.write {
            for id in 1...50 { scope.create(Counter.self, value: ["id": id, "value": id * 10]) }
        }
        if types.contains(where: { $0 == Person.self }) {
            try scope.write {
                let people = (0..<10).map { index in
                    let person = Person()
                    person.firstName = "P\(index)"
                    person.address = Address()
                    person.address?.city = "City \(index)"
                    return person
                }
                scope.add(people)
                for (index, person) in people.enumerated() { person.friends.append(people[(index + 1) % people.count]) }
            }
        }
        try scope.write { scope.object(ofType: Counter.self, forPrimaryKey: 7)!.value = 777 }
        let snapshot = scope.packageCommittedState.snapshotCommit(timestamp: Date(timeIntervalSince1970: 1_000))
        return (snapshot, try StoreState().applying(snapshot).state)
    }

    static func adopt(_ store: Store, _ scope: (snapshot: Commit, state: StoreState)) throws -> UInt64? {
        try store.syncAdopt(snapshot: scope.snapshot, scope: scope.state, label: "sync", metadata: ["origin": "scope"])
    }

    @MainActor @Test func anEmptyFileStoreStartsItsJournalAtTheSnapshot() async throws {
        let url = try Self.fileURL()
        let scope = try Self.scope()
        let store = try Store(configuration: .init(fileURL: url, objectTypes: Self.types))
        let counters = store.objects(Counter.self)
        var seen: [Int] = []
        let token = counters.observe { change in
            if case .update(let results, _, let insertions, _) = change { seen.append(results.count); seen.append(insertions.count) }
        }
        defer { token.invalidate() }
        #expect(counters.isEmpty)

        let version = try #require(try Self.adopt(store, scope))
        // Versions never go back: the scope's when it is ahead of the store's.
        #expect(version == max(scope.snapshot.version, 2))
        #expect(store.version == version)
        #expect(counters.count == 50)
        #expect(store.object(ofType: Counter.self, forPrimaryKey: 7)?.value == 777)
        let first = try #require(store.objects(Person.self).first { $0.firstName == "P0" })
        #expect(first.friends.first?.firstName == "P1")
        #expect(first.address?.city == "City 0")
        #expect(await CallbackObservationTests.mainEventually { seen == [50, 50] })

        // The journal starts at the snapshot, as a compacted one does.
        let journal = store.journalForReading
        #expect(journal.baseVersion == version - 1)
        let commits = Array(journal.commits())
        #expect(commits.count == 1)
        #expect(commits.first?.label == "sync")
        #expect(commits.first?.metadata["origin"] == "scope")
        #expect(commits.first.map(StoreState.isSnapshot) == true)
        // History starts there; versions before it are not on this device.
        let entries = try store.history(of: first, keyPath: \.firstName)
        #expect(entries.map(\.version) == [version])
        #expect(throws: StoreError.self) { try store.frozen(at: 1) }
        #expect(try store.frozen(at: version).objects(Counter.self).count == 50)

        // Writes go on after it; the file opens again to the same state.
        try store.write { store.create(Counter.self, value: ["id": 51]) }
        #expect(store.version == version + 1)
        try store.close()
        let reopened = try Store(configuration: .init(fileURL: url, objectTypes: Self.types))
        #expect(reopened.version == version + 1)
        #expect(reopened.objects(Counter.self).count == 51)
        #expect(reopened.object(ofType: Counter.self, forPrimaryKey: 7)?.value == 777)
    }

    @Test func anInMemoryStoreStartsItsJournalAtTheSnapshotToo() throws {
        let scope = try Self.scope()
        let store = try Store(configuration: .inMemory(identifier: "device-\(UUID())", objectTypes: Self.types))
        let version = try #require(try Self.adopt(store, scope))
        #expect(store.objects(Counter.self).count == 50)
        #expect(store.journalForReading.baseVersion == version - 1)
        try store.write { store.object(ofType: Counter.self, forPrimaryKey: 1)!.value = 1 }
        var folded = StoreState()
        var reader = store.journalForReading.reader()
        try folded.fold(&reader)
        #expect(folded.version == version + 1 && folded.isContentEqual(store.packageCommittedState))
    }

    @Test func aStoreWithObjectsKeepsItsJournal() throws {
        let url = try Self.fileURL()
        let scope = try Self.scope()
        let store = try Store(configuration: .init(fileURL: url, objectTypes: Self.types))
        try store.write { store.create(Counter.self, value: ["id": 1000]) }
        let before = store.version
        #expect(try Self.adopt(store, scope) == nil)
        #expect(store.version == before)
        #expect(store.journalForReading.baseVersion == 0)
        #expect(store.objects(Counter.self).map(\.id) == [1000])
    }

    @Test func aStoreWhoseObjectsWereAllDeletedKeepsItsJournal() throws {
        // Its commits are not schema alone: what it did must still reach the scope.
        let store = try Store(configuration: .inMemory(identifier: "device-\(UUID())", objectTypes: Self.types))
        try store.write { store.create(Counter.self, value: ["id": 7]) }
        try store.write { store.delete(store.object(ofType: Counter.self, forPrimaryKey: 7)!) }
        #expect(try Self.adopt(store, try Self.scope()) == nil)
        #expect(store.objects(Counter.self).isEmpty)
    }

    @Test func typesTheScopeLacksAreAddedAfterTheSnapshot() throws {
        let scope = try Self.scope(types: [Counter.self])
        let store = try Store(configuration: .inMemory(identifier: "device-\(UUID())", objectTypes: Self.types))
        let version = try #require(try Self.adopt(store, scope))
        let commits = Array(store.journalForReading.commits())
        #expect(commits.map(\.label) == ["sync", "schema"])
        #expect(store.version == version + 1)
        #expect(store.objects(Counter.self).count == 50)
        try store.write { store.add(Person()) }
        #expect(store.objects(Person.self).count == 1)
    }

    @Test func aScopeWhoseTablesAreInAnotherOrderIsNotAdopted() throws {
        let scope = try Self.scope(types: [Person.self, Counter.self])
        let store = try Store(configuration: .inMemory(identifier: "device-\(UUID())", objectTypes: Self.types))
        #expect(try Self.adopt(store, scope) == nil)
        #expect(store.objects(Counter.self).isEmpty)
    }

    @Test func anEmptyScopeIsNotAdopted() throws {
        let empty = try Store(configuration: .inMemory(identifier: "scope-\(UUID())", objectTypes: Self.types))
        let snapshot = empty.packageCommittedState.snapshotCommit(timestamp: Date())
        let store = try Store(configuration: .inMemory(identifier: "device-\(UUID())", objectTypes: Self.types))
        #expect(try store.syncAdopt(snapshot: snapshot, scope: try StoreState().applying(snapshot).state, label: "sync", metadata: [:]) == nil)
    }

    @Test func aJournalAnotherStoreHasOpenIsNotReplaced() throws {
        let url = try Self.fileURL()
        let store = try Store(configuration: .init(fileURL: url, objectTypes: Self.types))
        let other = try Store(configuration: .init(fileURL: url, objectTypes: Self.types))
        #expect(try Self.adopt(store, try Self.scope()) == nil)
        #expect(store.objects(Counter.self).isEmpty)
        try other.close()
        // Alone now: adopted.
        #expect(try Self.adopt(store, try Self.scope()) != nil)
        #expect(store.objects(Counter.self).count == 50)
    }
}
