import Testing
@testable import Chronicle

@Suite("PersistentIntMap")
struct PersistentIntMapTests {
    @Test func emptyMap() {
        let map = PersistentIntMap<String>()
        #expect(map.isEmpty && map.count == 0)
        #expect(map[1] == nil && map[-1] == nil)
        #expect(map.firstKey == nil && map.lastKey == nil)
        #expect(Array(map).isEmpty)
        map._checkInvariants()
    }

    @Test func sequentialKeysIterateInOrder() {
        var map = PersistentIntMap<Int64>()
        for key in Int64(1)...5000 { map[key] = key * 2 }
        map._checkInvariants()
        #expect(map.count == 5000)
        #expect(map.map(\.key) == Array(1...5000))
        #expect(map.allSatisfy { $0.value == $0.key * 2 })
        #expect(map.firstKey == 1 && map.lastKey == 5000)
        #expect(map.elements(from: 4990).map(\.key) == Array(4990...5000))
    }

    /// `appendAscending` builds what one `updateValue` per key builds, from
    /// an empty map, a root leaf, or a map whose nodes a copy shares (a
    /// checkpoint's state): the copy keeps its keys, and the keys may
    /// jump across leaves and grow the root.
    @Test(arguments: [Int64(0), 1, 40, 5_000])
    func appendingAscendingKeysBuildsWhatOneByOneBuilds(existing: Int64) {
        var map = PersistentIntMap<Int64>()
        for key in stride(from: Int64(0), to: existing, by: 1) { map[key] = -key }
        let copy = map
        let keys: [Int64] = Array(existing..<existing + 300) + [existing + 1_000, existing + 1_001, 1 << 20, (1 << 20) + 63,
                                                                (1 << 20) + 64, 1 << 40, Int64.max - 1]
        var expected = map
        for key in keys { expected.updateValue(key / 3, forKey: key) }
        map.appendAscending(count: keys.count, key: { keys[$0] }, value: { keys[$0] / 3 })
        map._checkInvariants()
        #expect(map.count == expected.count)
        #expect(Array(map).map(\.key) == Array(expected).map(\.key))
        #expect(Array(map).map(\.value) == Array(expected).map(\.value))
        #expect(map.lastKey == Int64.max - 1)
        copy._checkInvariants()
        #expect(copy.count == Int(existing))
        #expect(Array(copy).map(\.key) == Array(0..<existing))
        #expect(copy[existing] == nil)
    }

    @Test func hugeKeysGrowAndShrinkTheRoot() {
        var map = PersistentIntMap<Int>()
        map[3] = 3
        map[Int64.max] = 1
        map[1 << 40] = 2
        map._checkInvariants()
        #expect(map.map(\.key) == [3, 1 << 40, .max])
        #expect(map.lastKey == .max)
        map[Int64.max] = nil
        map[1 << 40] = nil
        map._checkInvariants()
        #expect(map.shift == 0)
        map[3] = nil
        map._checkInvariants()
        #expect(map.isEmpty && map.root == nil)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func randomOperationsMatchDictionary(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var map = PersistentIntMap<Int>()
        var model: [Int64: Int] = [:]
        // Small keys collide often; occasional huge keys exercise root growth.
        func randomKey() -> Int64 {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0: Int64.random(in: 0...Int64.max, using: &rng)
            case 1: Int64.random(in: 0..<(1 << 20), using: &rng)
            default: Int64.random(in: 0..<600, using: &rng)
            }
        }
        for step in 0..<4000 {
            let draining = step > 3000
            let key = draining && !model.isEmpty && Bool.random(using: &rng) ? model.keys.randomElement(using: &rng)! : randomKey()
            if draining || Int.random(in: 0..<3, using: &rng) == 0 {
                #expect(map.removeValue(forKey: key) == model.removeValue(forKey: key))
            } else {
                let value = Int.random(in: 0..<1000, using: &rng)
                #expect(map.updateValue(value, forKey: key) == model.updateValue(value, forKey: key))
            }
            map._checkInvariants()
            #expect(map.count == model.count)
            #expect(map[key] == model[key])
            if step % 97 == 0 {
                let sorted = model.sorted { $0.key < $1.key }
                #expect(map.map(\.key) == sorted.map(\.key))
                #expect(map.map(\.value) == sorted.map(\.value))
                let start = randomKey()
                #expect(map.elements(from: start).map(\.key) == sorted.map(\.key).filter { $0 >= start })
                #expect(Self.leafElements(map, from: start).map(\.key) == sorted.map(\.key).filter { $0 >= start })
                #expect(Self.leafElements(map, from: start).map(\.value) == sorted.filter { $0.key >= start }.map(\.value))
                #expect(map.firstKey == sorted.first?.key && map.lastKey == sorted.last?.key)
            }
        }
        for key in Array(model.keys) {
            map[key] = nil
            map._checkInvariants()
        }
        #expect(map.isEmpty && map.root == nil)
    }

    /// The elements `forEachLeaf` presents, in order.
    static func leafElements<Value>(_ map: PersistentIntMap<Value>, from start: Int64,
                                    stopAfter limit: Int = .max) -> [(key: Int64, value: Value)] {
        var result: [(key: Int64, value: Value)] = []
        map.forEachLeaf(from: start) { base, bits, values in
            #expect(base & 63 == 0)
            #expect(bits.nonzeroBitCount == values.count)
            var bits = bits
            var position = 0
            while bits != 0 {
                result.append((base | Int64(bits.trailingZeroBitCount), values[position]))
                bits &= bits &- 1
                position += 1
            }
            return result.count < limit
        }
        return result
    }

    @Test func leavesPresentTheElementsInOrderFromAnyStart() {
        var map = PersistentIntMap<Int64>()
        // Sparse keys across several levels and partly filled leaves.
        let keys: [Int64] = Array(1...300) + [4095, 4096, 4097, 70_000, 1 << 30, (1 << 30) + 63]
        for key in keys { map[key] = key * 3 }
        for start: Int64 in [-5, 0, 1, 2, 63, 64, 65, 300, 301, 4096, 4098, 70_001, 1 << 30, Int64.max] {
            let expected = keys.filter { $0 >= start }
            #expect(Self.leafElements(map, from: start).map(\.key) == expected, "from \(start)")
            #expect(Self.leafElements(map, from: start).allSatisfy { $0.value == $0.key * 3 })
        }
        // Returning false stops at the end of the current leaf.
        #expect(Self.leafElements(map, from: 0, stopAfter: 1).map(\.key) == Array(1...63))
        #expect(Self.leafElements(PersistentIntMap<Int64>(), from: 0).isEmpty)
    }

    @Test func oldCopiesAreUnchanged() {
        var map = PersistentIntMap<Int>()
        for key in Int64(0)..<1000 { map[key] = Int(key) }
        let snapshot = map
        let before = Array(snapshot)
        for key in Int64(0)..<1000 where key % 3 == 0 { map[key] = nil }
        for key in Int64(1000)..<1100 { map[key] = 0 }
        map[7] = -7
        snapshot._checkInvariants()
        map._checkInvariants()
        #expect(snapshot.count == 1000)
        #expect(Array(snapshot).elementsEqual(before) { $0.key == $1.key && $0.value == $1.value })
        #expect(map[7] == -7 && snapshot[7] == 7)
    }

    @Test func anUpdateCopiesOnlyItsPath() {
        var map = PersistentIntMap<Int>()
        for key in Int64(1)...100_000 { map[key] = 0 }
        let old = map
        map[50_000] = 1
        let fresh = map._nodeIdentities().subtracting(old._nodeIdentities())
        #expect(fresh.count == 3)  // depth of a 100k-key trie
        // Further edits to the same fresh copy write in place.
        map[50_001] = 1
        #expect(map._nodeIdentities().subtracting(old._nodeIdentities()) == fresh)
    }

    /// Keys above every key take the append path: ascending runs with gaps
    /// (new leaves and levels), jumps that grow the root, removals of the
    /// largest key (the next append then starts from the new largest), and
    /// copies taken along the way, which must not see later appends.
    @Test(arguments: [UInt64(5), 6, 7])
    func appendsMatchDictionary(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var map = PersistentIntMap<Int>()
        var model: [Int64: Int] = [:]
        var copies: [(PersistentIntMap<Int>, [Int64: Int])] = []
        var next: Int64 = Int64.random(in: 0..<3, using: &rng)
        for step in 0..<6000 {
            switch Int.random(in: 0..<20, using: &rng) {
            case 0:
                // Remove the largest key: the next append must not trust a stale maximum.
                if let last = model.keys.max() {
                    #expect(map.removeValue(forKey: last) == model.removeValue(forKey: last))
                    next = (model.keys.max() ?? -1) + 1
                }
            case 1:
                next += Int64.random(in: 64..<5000, using: &rng)  // skip to a new leaf or subtree
            case 2:
                if next < 1 << 50 { next = next * 64 + 1 }  // grow the root (to at most 2⁵⁶ + a little)
            case 3:
                // An update below the largest key: the ordinary path.
                if let key = model.keys.randomElement(using: &rng) {
                    #expect(map.updateValue(-step, forKey: key) == model.updateValue(-step, forKey: key))
                }
            default:
                #expect(map.updateValue(step, forKey: next) == model.updateValue(step, forKey: next))
                next += Int64.random(in: 1...2, using: &rng)
            }
            if step % 500 == 0 { copies.append((map, model)) }
            if step % 101 == 0 {
                map._checkInvariants()
                #expect(map.count == model.count)
                #expect(map.lastKey == model.keys.max())
            }
        }
        map._checkInvariants()
        let sorted = model.sorted { $0.key < $1.key }
        #expect(map.map(\.key) == sorted.map(\.key))
        #expect(map.map(\.value) == sorted.map(\.value))
        for (copy, expected) in copies {
            copy._checkInvariants()
            #expect(copy.count == expected.count)
            #expect(copy.lastKey == expected.keys.max())
            #expect(copy.allSatisfy { expected[$0.key] == $0.value })
        }
    }

    @Test func anAppendToASharedMapCopiesOnlyItsPath() {
        var map = PersistentIntMap<Int>()
        for key in Int64(1)...100_000 { map[key] = 0 }
        let old = map
        map[100_001] = 1
        let fresh = map._nodeIdentities().subtracting(old._nodeIdentities())
        #expect(fresh.count == 3)  // the rightmost path of a 100k-key trie
        #expect(old[100_001] == nil && old.count == 100_000 && old.lastKey == 100_000)
        #expect(map[100_001] == 1 && map.lastKey == 100_001)
        old._checkInvariants()
        map._checkInvariants()
    }

    /// A leaf keeps its values in its own block and moves them by hand
    /// (growing, inserting, removing, copying): each value is released
    /// once, when no version of the map holds it any more, and never
    /// before.
    @Test func valuesAreReleasedOnceNoVersionHoldsThem() {
        final class Box { let id: Int64; init(_ id: Int64) { self.id = id } }
        struct Weak { weak var box: Box? }
        var watched: [Int64: Weak] = [:]
        var map = PersistentIntMap<Box>()
        // Ascending runs (leaves given room for 64), then inserts below
        // the largest key (leaves grown by copies), removals and replacements.
        map.appendAscending(count: 300, key: { Int64($0 * 2) }, value: { Box(Int64($0 * 2)) })
        for key in stride(from: Int64(1), to: 600, by: 2) { map[key] = Box(key) }
        for (key, box) in map { watched[key] = Weak(box: box) }
        let copy = map
        for key in stride(from: Int64(0), to: 600, by: 3) { map[key] = nil }
        for key in stride(from: Int64(1), to: 600, by: 5) where map[key] != nil { map[key] = Box(-key) }
        map._checkInvariants()
        copy._checkInvariants()
        // The copy still holds every original value.
        #expect(copy.count == 600 && copy.allSatisfy { $0.value.id == $0.key })
        #expect(watched.values.allSatisfy { $0.box != nil })
        do {
            let kept = Set(map.filter { $0.value.id == $0.key }.map(\.key))
            _ = consume copy
            for (key, weak) in watched {
                #expect((weak.box != nil) == kept.contains(key), "key \(key)")
            }
        }
        #expect(map.allSatisfy { $0.value.id == $0.key || $0.value.id == -$0.key })
        map = PersistentIntMap()
        #expect(watched.values.allSatisfy { $0.box == nil })
    }

    /// A leaf of records, a store's objects, copies and releases them by a
    /// loop of its own (not the generic one of other values): each record
    /// is released once no version of the map holds it, and never before.
    @Test func recordsAreReleasedOnceNoVersionHoldsThem() {
        struct Weak { weak var storage: RecordStorage? }
        var watched: [Int64: Weak] = [:]
        var map = PersistentIntMap<ObjectRecord>()
        map.appendAscending(count: 300, key: { Int64($0 * 2) }, value: { ObjectRecord(values: [.int(Int64($0 * 2))]) })
        for key in stride(from: Int64(1), to: 600, by: 2) { map[key] = ObjectRecord(values: [.int(key)]) }
        for (key, record) in map { watched[key] = Weak(storage: record.storage) }
        let copy = map
        // Edits of the shared map copy the leaves on their paths.
        for key in stride(from: Int64(0), to: 600, by: 3) { map[key] = nil }
        for key in stride(from: Int64(1), to: 600, by: 5) where map[key] != nil { map[key] = ObjectRecord(values: [.int(-key)]) }
        map._checkInvariants()
        copy._checkInvariants()
        #expect(copy.count == 600 && copy.allSatisfy { $0.value[0] == .int($0.key) })
        #expect(watched.values.allSatisfy { $0.storage != nil })
        do {
            let kept = Set(map.filter { $0.value[0] == .int($0.key) }.map(\.key))
            _ = consume copy
            for (key, weak) in watched {
                #expect((weak.storage != nil) == kept.contains(key), "key \(key)")
            }
        }
        map = PersistentIntMap()
        #expect(watched.values.allSatisfy { $0.storage == nil })
    }
}
