import Foundation
import Testing
@testable import Chronicle

/// A write gathers the secondary-index entries of the objects `add`
/// creates and files them together (one walk per value, as a fold does):
/// before any other event, before anything reads the write's state, and so
/// before the commit. These tests read the indexes through queries inside
/// the write and after it, and check the committed state against indexes
/// rebuilt from its objects (`_invariantViolations`).
@Suite("Index entries gathered in a write")
struct WriteIndexEntriesTests {
    struct Boom: Error {}

    static func badge(_ id: Int, _ label: String, level: Int? = nil) -> Badge {
        let badge = Badge()
        badge.id = id
        badge.label = label
        badge.level = level
        return badge
    }

    static func ids(_ store: Store, label: String) -> [Int] {
        store.objects(Badge.self).filter(#Predicate { $0.label == label }).map(\.id).sorted()
    }

    @Test func aQueryInsideTheWriteSeesEveryAddBeforeIt() throws {
        let store = try Store(configuration: .inMemory())
        try store.write {
            for id in 0..<50 { store.add(Self.badge(id, id % 3 == 0 ? "gold" : "tin", level: id % 5)) }
            #expect(Self.ids(store, label: "gold") == Array(stride(from: 0, to: 50, by: 3)))
            // More adds after a read: gathered again, and seen by the next read.
            for id in 50..<60 { store.add(Self.badge(id, "gold")) }
            #expect(Self.ids(store, label: "gold") == Array(stride(from: 0, to: 50, by: 3)) + Array(50..<60))
            let four = 4
            #expect(store.objects(Badge.self).filter(#Predicate { $0.level == four }).count == 10)
        }
        #expect(Self.ids(store, label: "gold") == Array(stride(from: 0, to: 50, by: 3)) + Array(50..<60))
        #expect(Self.ids(store, label: "tin").count == 33)
        #expect(store.committedState()._invariantViolations().isEmpty)
    }

    /// Writes, deletes and updates between adds find the entries of the
    /// objects added before them filed: a changed label leaves its old
    /// value's list, a deleted object leaves every list.
    @Test func eventsBetweenAddsFindTheEarlierAddsFiled() throws {
        let store = try Store(configuration: .inMemory())
        try store.write {
            let first = Self.badge(1, "x"), second = Self.badge(2, "y")
            store.add(first)
            store.add(second)
            first.label = "z"
            store.delete(second)
            store.add(Self.badge(3, "x"))
            // An add that updates an existing object (by primary key) is a write, not a create.
            store.add(Self.badge(1, "w"), update: .modified)
            store.add(Self.badge(4, "w"))
        }
        #expect(Self.ids(store, label: "x") == [3])
        #expect(Self.ids(store, label: "y") == [])
        #expect(Self.ids(store, label: "z") == [])
        #expect(Self.ids(store, label: "w") == [1, 4])
        #expect(store.committedState()._invariantViolations().isEmpty)
    }

    /// An instance whose add was rolled back is created again at the key it
    /// was bound to, older than the keys the write handed out before it:
    /// its entry is filed in order among theirs.
    @Test func aRetriedAddFilesItsOlderKeyInOrder() throws {
        let store = try Store(configuration: .inMemory())
        let retried = Self.badge(100, "gold")
        #expect(throws: Boom.self) {
            try store.write {
                store.add(retried)
                throw Boom()
            }
        }
        let old = try #require(retried.location).key
        try store.write {
            for id in 0..<5 { store.add(Self.badge(id, "gold")) }
            store.add(retried)
            store.add(Self.badge(5, "gold"))
        }
        #expect(try #require(retried.location).key == old)
        #expect(Self.ids(store, label: "gold") == [0, 1, 2, 3, 4, 5, 100])
        let state = store.committedState()
        let table = try #require(state.tableIndex(named: "Badge"))
        let property = try #require(state.schema[table].properties.firstIndex { $0.name == "label" })
        let keys = try #require(state.keys(table: table, property: property, equalTo: .string("gold")))
        #expect(keys == keys.sorted() && keys.first == old)
        #expect(state._invariantViolations().isEmpty)
    }

    /// A write that fails after gathering entries commits none of them.
    @Test func aRejectedWriteLeavesTheIndexAsItWas() throws {
        let store = try Store(configuration: .inMemory())
        try store.write { store.add(Self.badge(1, "gold")) }
        #expect(throws: StoreError.self) {
            try store.write {
                store.add(Self.badge(2, "gold"))
                store.add(Self.badge(3, "gold"))
                store.add(Self.badge(1, "tin"))  // duplicate primary key: the write is rejected
            }
        }
        #expect(Self.ids(store, label: "gold") == [1])
        #expect(Self.ids(store, label: "tin") == [])
        #expect(store.committedState()._invariantViolations().isEmpty)
    }

    /// A journal written by such writes reopens to the same indexes.
    @Test func aReopenedJournalHasTheSameIndexes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("badges.journal")
        do {
            let store = try Store(configuration: .init(fileURL: url, objectTypes: [Badge.self]))
            try store.write {
                for id in 0..<40 { store.add(Self.badge(id, ["a", "b", "c"][id % 3])) }
            }
            try store.close()
        }
        let reopened = try Store(configuration: .init(fileURL: url, objectTypes: [Badge.self]))
        #expect(Self.ids(reopened, label: "b") == Array(stride(from: 1, to: 40, by: 3)))
        #expect(reopened.committedState()._invariantViolations().isEmpty)
    }
}
