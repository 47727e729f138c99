import Testing
@testable import Chronicle

/// The tries' bulk builders (used to restore checkpoint files) must make
/// exactly the tries that inserting the same entries makes.
@Suite("Persistent maps: bulk building")
struct BulkBuildTests {
    /// Whether two int tries have the same shape and values.
    static func sameShape<Value: Equatable>(_ a: IntMapNode<Value>, _ b: IntMapNode<Value>) -> Bool {
        a.bitmap == b.bitmap && a.withValues({ Array($0) }) == b.withValues({ Array($0) }) && a.children.count == b.children.count
            && zip(a.children, b.children).allSatisfy { sameShape($0, $1) }
    }

    /// Whether two hash tries have the same shape and the same entries in each node (collision nodes in any order).
    static func sameShape<Key, Value: Equatable>(_ a: HashMapNode<Key, Value>, _ b: HashMapNode<Key, Value>) -> Bool {
        guard a.dataMap == b.dataMap, a.nodeMap == b.nodeMap, a.entries.count == b.entries.count,
              a.children.count == b.children.count else { return false }
        let sameEntries = a.dataMap == 0 && a.nodeMap == 0
            ? a.entries.allSatisfy { entry in b.entries.contains { $0.key == entry.key && $0.value == entry.value } }
            : zip(a.entries, b.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        return sameEntries && zip(a.children, b.children).allSatisfy { sameShape($0, $1) }
    }

    static let keySets: [(String, [Int64])] = {
        var rng = SplitMix64(seed: 77)
        let sparse = Set((0..<3000).map { _ in Int64(rng.next() % 1_000_000) }).sorted()
        let wide = Set((0..<500).map { _ in Int64(bitPattern: rng.next() >> 1) }).sorted()
        return [
            ("empty", []), ("zero", [0]), ("one large", [Int64.max]), ("63, 64", [63, 64]),
            ("dense from 0", Array(0..<5000)), ("dense from 1", Array(1...4096)), ("4095...4097", [4095, 4096, 4097]),
            ("sparse", sparse), ("across the whole range", wide), ("edges", [0, 1, 4095, 262_143, Int64.max - 1, Int64.max]),
        ]
    }()

    @Test(arguments: keySets.indices)
    func anIntMapBuiltFromAscendingKeysIsTheOneInsertsMake(set: Int) {
        let (name, keys) = Self.keySets[set]
        var inserted = PersistentIntMap<Int64>()
        var builder = PersistentIntMap<Int64>.Builder()
        for key in keys {
            inserted[key] = key &* 3
            builder.append(key &* 3, forKey: key)
        }
        let built = builder.build()
        built._checkInvariants()
        #expect(built.count == keys.count, "\(name)")
        #expect(built.shift == inserted.shift, "\(name)")
        #expect(built.elementsEqual(inserted, by: { $0 == $1 }), "\(name)")
        if let a = built.root, let b = inserted.root { #expect(Self.sameShape(a, b), "\(name)") }
        #expect((built.root == nil) == keys.isEmpty, "\(name)")
        // A built map is an ordinary one: it edits, copies and shrinks like one.
        var edited = built
        for key in keys.prefix(100) { edited[key] = nil }
        edited[12_345] = 1
        edited._checkInvariants()
        built._checkInvariants()
        #expect(built.count == keys.count)
    }

    @Test(arguments: [0, 1, 2, 3, 64, 65, 1000, 20_000])
    func aHashMapBuiltInBulkIsTheOneInsertsMake(count: Int) throws {
        // Few distinct hashes: shared digits at every level and whole-hash collisions.
        var rng = SplitMix64(seed: UInt64(count))
        let hashes = (0..<max(1, count / 3)).map { _ in Int(bitPattern: UInt(rng.next())) }
        let entries = ContiguousArray((0..<count).map { (key: ChosenHashKey(id: $0, hash: hashes[Int(rng.next() % UInt64(hashes.count))]), value: $0) })
        var inserted = PersistentHashMap<ChosenHashKey, Int>()
        for entry in entries { inserted[entry.key] = entry.value }
        let built = try PersistentHashMap<ChosenHashKey, Int>.building(from: entries).get()
        built._checkInvariants()
        #expect(built.count == count)
        for entry in entries { #expect(built[entry.key] == entry.value) }
        if let a = built.root, let b = inserted.root { #expect(Self.sameShape(a, b)) }
        #expect((built.root == nil) == (count == 0))
        var edited = built
        for entry in entries.prefix(count / 2) { edited[entry.key] = nil }
        edited._checkInvariants()
        #expect(edited.count == count - count / 2)
    }

    @Test func aHashMapBuiltFromStringsIsTheOneInsertsMake() throws {
        let entries = ContiguousArray((0..<3000).map { (key: PersistedValue.string("team-\($0)"), value: ObjectKey(Int64($0))) })
        var inserted = PersistentHashMap<PersistedValue, ObjectKey>()
        for entry in entries { inserted[entry.key] = entry.value }
        let built = try PersistentHashMap<PersistedValue, ObjectKey>.building(from: entries).get()
        built._checkInvariants()
        #expect(Self.sameShape(try #require(built.root), try #require(inserted.root)))
    }

    @Test func buildingAHashMapReportsEqualKeys() {
        let entries: ContiguousArray<(key: ChosenHashKey, value: Int)> = [
            (ChosenHashKey(id: 1, hash: 5), 10), (ChosenHashKey(id: 2, hash: 5), 20),
            (ChosenHashKey(id: 3, hash: 9), 30), (ChosenHashKey(id: 2, hash: 5), 40),
        ]
        guard case .failure(let pair) = PersistentHashMap<ChosenHashKey, Int>.building(from: entries) else {
            Issue.record("equal keys built a map")
            return
        }
        #expect(pair.first == 1 && pair.second == 3)
    }

    @Test(arguments: [0, 1, 127, 128, 129, 256, 1000])
    func sortedChunksFromAnAscendingArrayAreTheAppendedOnes(count: Int) {
        let elements = (0..<count).map { $0 / 3 }  // with repeats
        let bulk = SortedChunks(ascending: elements)
        bulk._checkInvariants()
        let appended = SortedChunks(sorted: elements)
        #expect(bulk == appended)
        #expect(bulk.chunks.map(\.count) == appended.chunks.map(\.count))
        var edited = bulk
        edited.insert(count / 2)
        edited._checkInvariants()
        #expect(edited.count == count + 1 && bulk.count == count)
    }
}
