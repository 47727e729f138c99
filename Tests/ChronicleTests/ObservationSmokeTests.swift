import Foundation
import Testing
@testable import Chronicle

@Suite("Observation basics")
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
