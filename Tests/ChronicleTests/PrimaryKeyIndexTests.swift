import Foundation
import Testing
@testable import Chronicle

@Suite("PrimaryKeyIndex")
struct PrimaryKeyIndexTests {
    @Test func everyKindOfKeyRoundTrips() {
        var index = PrimaryKeyIndex()
        let keys: [PersistedValue] = [.int(0), .int(1), .int(.max), .int(-1), .int(.min), .string("a"), .string(""),
                                      .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))]
        for (position, key) in keys.enumerated() { index[key] = ObjectKey(Int64(position + 1)) }
        index._checkInvariants()
        #expect(index.count == keys.count)
        #expect(index.integers.count == 3, "non-negative integers go to the int trie")
        for (position, key) in keys.enumerated() { #expect(index[key] == ObjectKey(Int64(position + 1)), "\(key)") }
        #expect(index[.int(2)] == nil && index[.string("b")] == nil)
        index[.int(1)] = nil
        index[.string("a")] = nil
        index._checkInvariants()
        #expect(index.count == keys.count - 2)
        #expect(index[.int(1)] == nil && index[.string("a")] == nil && index[.int(0)] == ObjectKey(1))
    }

    @Test func aBulkLoadOfIdsSharesAlmostEverythingWithTheVersionBefore() {
        var index = PrimaryKeyIndex()
        for id in Int64(1)...100_000 { index[.int(id)] = ObjectKey(id) }
        let before = index
        for id in Int64(100_001)...100_100 { index[.int(id)] = ObjectKey(id) }
        let added = index.integers._nodeIdentities().subtracting(before.integers._nodeIdentities())
        // 100 sequential ids: the new leaves and their path, not a copy of the index.
        #expect(added.count <= 6)
        #expect(before.count == 100_000 && index.count == 100_100)
    }
}
