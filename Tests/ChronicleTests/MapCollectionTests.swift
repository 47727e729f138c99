import Foundation
import ChronicleTesting
import Testing
@testable import Chronicle

final class Kennel: Object {
    @Persisted var dogs: Map<String, Dog>
}
extension Kennel: @unchecked Sendable {}

/// Issue 27: `Map` is a collection of `(key:, value:)` pairs in key order.
@Suite("Map as a collection")
struct MapCollectionTests {
    @Test func iteratesAsKeyValuePairs() throws {
        let store = try scratchStore()
        let holder = AllTypes()
        #expect(holder.scores.isEmpty)
        holder.scores["b"] = 2
        holder.scores["a"] = 1
        try store.write { store.add(holder) }
        var seen: [String] = []
        for (key, value) in holder.scores { seen.append("\(key)=\(value)") }
        #expect(seen == ["a=1", "b=2"])
        #expect(!holder.scores.isEmpty)
        let values: [Int] = holder.scores.values
        #expect(values == [1, 2])
        #expect(holder.scores.keys == ["a", "b"])
        #expect(holder.scores[1].key == "b" && holder.scores[1].value == 2)
        #expect(holder.scores.map(\.value).reduce(0, +) == 3)
        let generic: AnyLiveCollection<(key: String, value: Int)> = AnyLiveCollection(holder.scores)
        #expect(generic.count == 2)
    }

    @Test func freezesAndThaws() throws {
        let store = try scratchStore()
        let holder = AllTypes()
        try store.write { store.add(holder); holder.scores["a"] = 1 }
        let frozen = holder.scores.freeze()
        #expect(frozen.isFrozen && !holder.scores.isFrozen)
        try store.write { holder.scores["a"] = 5 }
        #expect(frozen["a"] == 1)
        #expect(frozen.thaw()?["a"] == 5)
        try store.write { store.delete(holder) }
        #expect(frozen.thaw() == nil)
        #expect(frozen["a"] == 1)
    }

    /// In a `Map<String, Dog>` (not optional), an entry whose dog was
    /// deleted is left out rather than read as a wrong value.
    @Test func nonOptionalObjectMapLeavesOutDeletedTargets() throws {
        let store = try scratchStore()
        let kennel = Kennel(), rex = Dog(), max = Dog()
        rex.name = "Rex"
        max.name = "Max"
        kennel.dogs["rex"] = rex
        kennel.dogs["max"] = max
        try store.write { store.add(kennel) }
        try store.write { store.delete(rex) }
        #expect(kennel.dogs.count == 1)
        #expect(kennel.dogs.map(\.value.name) == ["Max"])
    }

    @Test func keyPathFilteredChangesAndObserve() async throws {
        let store = try scratchStore()
        let kennel = Kennel(), rex = Dog()
        kennel.dogs["rex"] = rex
        try store.write { store.add(kennel) }
        let byName = StreamProbe(kennel.dogs.changes(keyPaths: [\.name]))
        let updates = StreamProbe<String>()
        let token = try kennel.dogs.observe(checkedKeyPaths: ["weight"]) { updates.record(OptionalElementTests.indexes($0)) }
        #expect(await byName.next().map(OptionalElementTests.indexes) == "initial")
        #expect(await updates.next() == "initial")
        try store.write { rex.weight = 30 }
        #expect(await updates.next() == "[] [] [0]")
        await byName.expectNoChange()
        try store.write { rex.name = "Rex" }
        #expect(await byName.next().map(OptionalElementTests.indexes) == "[] [] [0]")
        try store.write { kennel.dogs["ace"] = Dog() }
        #expect(await byName.next().map(OptionalElementTests.indexes) == "[] [0] []")
        #expect(throws: ObservationError.unknownKeyPath("nmae", type: "Dog")) { try kennel.dogs.changes(keyPaths: ["nmae"]) }
        token.invalidate()
    }
}
