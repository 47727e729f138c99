import Chronicle
import ChronicleTesting
import Foundation
import Testing

@Suite("Fresh stores")
struct FreshStoreTests {
    @Test(.freshStore) func theTraitProvidesAnEmptyStore() {
        #expect(TestStore.current.version == 0)
        #expect(TestStore.currentIfAvailable === TestStore.current)
    }

    @Test func outsideAScopeThereIsNoStore() {
        #expect(TestStore.currentIfAvailable == nil)
    }

    @Test(.freshStore, arguments: 1...8)
    func everyCaseOfAParameterizedTestGetsItsOwnStore(count: Int) async throws {
        let store = TestStore.current
        for index in 0..<count {
            try await store.asyncWrite { store.add(contact("c\(index)")) }
            await Task.yield()
        }
        #expect(store.objects(Contact.self).count == count, "no other case wrote to this store")
        #expect(store.version == UInt64(count))
    }

    @Test(.freshStore(objectTypes: [Contact.self])) func objectTypesAreRegisteredInOneSchemaCommit() throws {
        #expect(TestStore.current.version == 1)
        #expect(try TestStore.current.lastCommitEvents().first?.hasPrefix("define Contact(_id: ObjectId (primary key), name: String") == true)
    }

    @Test(.freshStore(seed: 42)) func identifiersComeFromTheSeed() {
        let expected = SeededIdentifiers(seed: 42)
        #expect(Contact()._id == expected.nextObjectId())
        #expect(Pet()._id == expected.nextUUID())
        #expect(ObjectId.generate() == expected.nextObjectId())
    }

    @Test(.freshStore(clockStart: Date(timeIntervalSince1970: 0), clockStep: .milliseconds(250)))
    func commitsAreTimestampedByTheTestClock() throws {
        let store = TestStore.current
        try store.write { store.add(Contact()) }
        try store.write { store.add(Contact()) }
        let times = store.journalForReading.commits().map(\.timestamp.timeIntervalSince1970)
        #expect(times == [0, 0.25])
        #expect(TestStore.clock.date == Date(timeIntervalSince1970: 0.5))
    }

    @Test(.freshStore) func tasksTheTestCreatesSeeTheSameStore() async {
        let store = TestStore.current
        let fromTask = await Task { TestStore.current }.value
        #expect(fromTask === store)
        let fromDetached = await Task.detached { TestStore.currentIfAvailable }.value
        #expect(fromDetached == nil)
    }

    @Test func withFreshStoreRunsABodyWithAStore() async throws {
        let count = try withFreshStore { store in
            #expect(TestStore.current === store)
            try store.write { store.add(Contact()) }
            return store.objects(Contact.self).count
        }
        #expect(count == 1)
        let version = try await withFreshStore(objectTypes: [Contact.self]) { store in
            try await store.asyncWrite { store.add(Contact()) }
            await Task.yield()
            return store.version
        }
        #expect(version == 2)
        #expect(TestStore.currentIfAvailable == nil)
    }
}

/// The trait on a suite: every test gets its own store, whatever the order.
@Suite(.freshStore(objectTypes: [Contact.self]))
struct FreshStoreSuiteTraitTests {
    @Test func first() throws {
        #expect(TestStore.current.version == 1)
        try TestStore.current.write { TestStore.current.add(Contact()) }
    }

    @Test func second() throws {
        #expect(TestStore.current.version == 1)
        try TestStore.current.write { TestStore.current.add(Contact()) }
    }
}
