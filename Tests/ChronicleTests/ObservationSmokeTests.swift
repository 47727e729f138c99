import Foundation
import Testing
@testable import Chronicle

@Suite("Observation basics", .timeLimit(.minutes(1)))
struct ObservationSmokeTests {
    @Test func objectStreamReportsOnlyObservedProperties() async throws {
        let store = try scratchStore()
        let person = Person()
        person.firstName = "Jason"
        try store.write { store.add(person) }
        let stream = person.changes(keyPaths: [\.firstName])
        var iterator = stream.makeAsyncIterator()
        try store.write { person.lastName = "Bourne" }          // not observed
        try store.write { person.firstName = "David" }
        let change = await iterator.next()
        guard case .change(_, let properties)? = change else {
            Issue.record("expected a change, got \(String(describing: change))")
            return
        }
        #expect(properties.map(\.name) == ["firstName"])
        #expect(properties.first?.oldValue as? String == "Jason")
        #expect(properties.first?.newValue as? String == "David")
    }

    @Test func projectionStreamMapsBaseChangesToProjectedNames() async throws {
        let store = try scratchStore()
        let person = Person()
        person.firstName = "Jason"
        try store.write { store.add(person) }
        let projection = try #require(store.objects(PersonProjection.self).first)
        var iterator = projection.changes(keyPaths: [\.firstName]).makeAsyncIterator()
        try store.write { person.lastName = "x" }
        try store.write { projection.firstName = "David" }
        guard case .change(_, let properties)? = await iterator.next() else {
            Issue.record("expected a change")
            return
        }
        #expect(properties.map(\.name) == ["firstName"])
        #expect(properties.first?.newValue as? String == "David")
    }

    @Test func deletionEndsTheStreamAndFreesTheRegistration() async throws {
        let store = try scratchStore()
        let person = Person()
        try store.write { store.add(person) }
        var iterator = person.changes().makeAsyncIterator()
        #expect(store.observers.count == 1)
        try store.write { store.delete(person) }
        let first = await iterator.next()
        guard case .deleted? = first else {
            Issue.record("expected .deleted, got \(String(describing: first))")
            return
        }
        #expect(await iterator.next() == nil)
        #expect(store.observers.count == 0)
    }
}

@Suite("Collection observation basics", .timeLimit(.minutes(1)))
struct CollectionObservationSmokeTests {
    @Test func resultsStreamStartsWithInitialThenReportsInsertions() async throws {
        let store = try scratchStore()
        try store.write { store.add(Counter()) }
        var iterator = store.objects(Counter.self).changes().makeAsyncIterator()
        guard case .initial(let initial)? = await iterator.next() else {
            Issue.record("expected .initial")
            return
        }
        #expect(initial.count == 1)
        try store.write {
            let counter = Counter()
            counter.id = 2
            store.add(counter)
        }
        guard case .update(let results, let deletions, let insertions, let modifications)? = await iterator.next() else {
            Issue.record("expected .update")
            return
        }
        #expect(results.count == 2)
        #expect(deletions == [] && insertions == [1] && modifications == [])
    }

    @Test func indexDiffTransformsOldIntoNew() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let old = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Int.random(in: 0...6, using: &generator) }
            let new = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Int.random(in: 0...6, using: &generator) }
            let uniqueOld = Array(Set(old)).shuffled(), uniqueNew = Array(Set(new)).shuffled()
            for (a, b) in [(old, new), (uniqueOld, uniqueNew)] {
                let diff = IndexDiff.compute(old: a, new: b)
                var applied = a
                for index in diff.deletions.reversed() { applied.remove(at: index) }
                for index in diff.insertions { applied.insert(b[index], at: index) }
                #expect(applied == b, "old \(a) new \(b) diff \(diff)")
                #expect(diff.kept.allSatisfy { a[$0.old] == b[$0.new] })
            }
        }
    }
}
