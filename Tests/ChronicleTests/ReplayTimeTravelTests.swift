import Foundation
import Testing
@testable import Chronicle

@Suite("Replay: time travel")
struct ReplayTimeTravelTests {
    @Test(arguments: [1 as UInt64, 7, 42])
    func frozenAtEveryVersionEqualsAFreshFoldOfThatPrefix(seed: UInt64) throws {
        let (store, commits, expected) = try ReplayFixtures.timeTravelStore(seed: seed, count: 150)
        #expect(store.version == UInt64(commits.count))
        #expect(store.checkpoints.count > 0 && store.checkpoints.count <= 8)
        // Out of order, so checkpoints made on the way are used and filled in.
        var versions = Array(0...UInt64(commits.count))
        var rng = SplitMix64(seed: seed)
        versions.shuffle(using: &rng)
        for version in versions {
            let frozen = try store.frozen(at: version)
            #expect(frozen.version == version)
            #expect(frozen.state.isContentEqual(expected[Int(version)]), "version \(version)")
            frozen.state._checkInvariants()
            #expect(frozen.timestamp == (version == 0 ? nil : commits[Int(version) - 1].timestamp))
        }
    }

    @Test func versionsBeyondTheStoreAreATypedError() throws {
        let store = try scratchStore()
        try store.write { store.add(Counter()) }
        #expect(throws: StoreError.self) { try store.frozen(at: 2) }
        do {
            _ = try store.frozen(at: 9)
            Issue.record("expected an error")
        } catch {
            guard case .versionOutOfRange(let requested, let available) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(requested == 9 && available == 0...1)
        }
    }

    @Test func frozenViewsReadModelsQueriesAndNeverChange() throws {
        let store = try Store(configuration: .inMemory(identifier: "frozen", clock: ReplayFixtures.clock()))
        let counter = Counter()
        counter.id = 7
        try store.write(label: "create") { store.add(counter) }                         // v1
        try store.write(label: "bump") { counter.value = 1 }                            // v2
        try store.write(label: "more") { for id in 8...10 { store.create(Counter.self, value: ["id": id, "value": id]) } } // v3
        try store.write(label: "bump again") { counter.value = 2 }                      // v4
        let v2 = try store.frozen(at: 2)
        #expect(v2.label == "bump")
        #expect(v2.objects(Counter.self).isFrozen)
        #expect(v2.objects(Counter.self).count == 1)
        let frozenCounter = try #require(v2.object(ofType: Counter.self, forPrimaryKey: 7))
        #expect(frozenCounter.isFrozen && frozenCounter.value == 1)
        #expect(v2.object(ofType: Counter.self, forPrimaryKey: 8) == nil)
        let v3 = try store.frozen(at: 3)
        #expect(v3.objects(Counter.self).filter(#Predicate { $0.value >= 8 }).count == 3)
        #expect(v3.objects(Counter.self).sorted(by: \.value, ascending: false).first?.id == 10)
        try store.write { counter.value = 99 }
        #expect(frozenCounter.value == 1)
        #expect(try store.frozen(at: 0).objects(Counter.self).isEmpty)
    }

    @Test func frozenAtADateIsTheLastVersionAtOrBeforeIt() throws {
        let store = try Store(configuration: .inMemory(identifier: "dates", clock: ReplayFixtures.clock()))
        for value in 1...5 { try store.write { store.create(Counter.self, value: ["id": value]) } }
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        #expect(try store.frozen(at: start).version == 0)
        #expect(try store.frozen(at: start + 1).version == 1)
        #expect(try store.frozen(at: start + 3.5).version == 3)
        #expect(try store.frozen(at: start + 100).version == 5)
    }
}
