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
}
