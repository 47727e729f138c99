import Testing
@testable import Chronicle

@Suite("PersistentHashMap")
struct PersistentHashMapTests {
    @Test func emptyMap() {
        let map = PersistentHashMap<String, Int>()
        #expect(map.isEmpty && map["a"] == nil && Array(map).isEmpty)
        map._checkInvariants()
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func randomOperationsMatchDictionary(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var map = PersistentHashMap<Int, Int>()
        var model: [Int: Int] = [:]
        for step in 0..<5000 {
            let key = Int.random(in: 0..<800, using: &rng)
            if step > 3500 || Int.random(in: 0..<3, using: &rng) == 0 {
                #expect(map.removeValue(forKey: key) == model.removeValue(forKey: key))
            } else {
                let value = Int.random(in: 0..<100, using: &rng)
                #expect(map.updateValue(value, forKey: key) == model.updateValue(value, forKey: key))
            }
            map._checkInvariants()
            #expect(map.count == model.count && map[key] == model[key])
            if step % 101 == 0 {
                #expect(Dictionary(uniqueKeysWithValues: map.map { ($0.key, $0.value) }) == model)
            }
        }
        for key in Array(model.keys) {
            map[key] = nil
            map._checkInvariants()
        }
        #expect(map.isEmpty && map.root == nil)
    }

    @Test(arguments: [UInt64(21), 22])
    func collidingKeysMatchDictionary(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var map = PersistentHashMap<ChosenHashKey, Int>()
        var model: [ChosenHashKey: Int] = [:]
        for step in 0..<3000 {
            let id = Int.random(in: 0..<200, using: &rng)
            let key = ChosenHashKey(id: id, hash: id % 5)
            if step > 2000 || Bool.random(using: &rng) {
                #expect(map.removeValue(forKey: key) == model.removeValue(forKey: key))
            } else {
                #expect(map.updateValue(step, forKey: key) == model.updateValue(step, forKey: key))
            }
            map._checkInvariants()
            #expect(map.count == model.count && map[key] == model[key])
        }
        #expect(Dictionary(uniqueKeysWithValues: map.map { ($0.key, $0.value) }) == model)
    }

    @Test func oldCopiesAreUnchanged() {
        var map = PersistentHashMap<String, Int>()
        for i in 0..<500 { map["k\(i)"] = i }
        let snapshot = map
        for i in 0..<500 where i % 2 == 0 { map["k\(i)"] = nil }
        map["k1"] = -1
        snapshot._checkInvariants()
        map._checkInvariants()
        #expect(snapshot.count == 500 && map.count == 250)
        let intact = (0..<500).allSatisfy { snapshot["k" + String($0)] == $0 }
        #expect(intact)
        #expect(map["k1"] == -1 && map["k0"] == nil)
    }

    @Test func anUpdateCopiesOnlyItsPath() {
        var map = PersistentHashMap<Int, Int>()
        for i in 0..<100_000 { map[i] = i }
        let old = map
        map[500] = -1
        let fresh = map._nodeIdentities().subtracting(old._nodeIdentities())
        #expect(fresh.count <= 5)
        map[500] = -2
        #expect(map._nodeIdentities().subtracting(old._nodeIdentities()) == fresh)
    }
}
