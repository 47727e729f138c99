import Foundation
import Testing
@testable import Chronicle

/// What FilteringAndSorting.md and WorkingWithCollections.md state about
/// computed properties in queries.
@Suite("Computed properties in queries")
struct ComputedPropertyQueryTests {
    /// A computed property that reads persisted ones filters object by
    /// object, alone, joined with `&&`, and inside `||`.
    @Test func computedPropertyOverPersistedOnesFilters() throws {
        let store = try scratchStore()
        _ = try CollectionTests.dogs(["Rex", "Fido", "Rover"], in: store)
        let dogs = store.objects(Dog.self)
        #expect(Set(dogs.filter(#Predicate<Dog> { $0.firstLetter == "R" }).map(\.name)) == ["Rex", "Rover"])
        #expect(dogs.filter(#Predicate<Dog> { $0.name != "Rex" && $0.firstLetter == "R" }).map(\.name) == ["Rover"])
        #expect(Set(dogs.filter(#Predicate<Dog> { $0.firstLetter == "F" || $0.name == "Rex" }).map(\.name)) == ["Fido", "Rex"])
    }

    /// A computed property that reads nothing persisted throws when the
    /// query is built.
    @Test func computedPropertyOverNothingPersistedThrows() throws {
        let store = try scratchStore()
        try store.write { store.add(Gizmo()) }
        #expect(throws: QueryError.self) {
            _ = try store.objects(Gizmo.self).filtered(#Predicate<Gizmo> { $0.constant == 42 })
        }
    }
}
