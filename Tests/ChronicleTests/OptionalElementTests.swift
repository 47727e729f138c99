import Foundation
import ChronicleTesting
import Testing
@testable import Chronicle

/// Collections of optionals, as the Realm SDK allows them.
final class Shelf: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var labels: List<String?>
    @Persisted var sizes: MutableSet<Int?>
    @Persisted var counts: Map<String, Int?>
    @Persisted var pets: Map<String, Dog?>
}
extension Shelf: @unchecked Sendable {}

final class ShelfLabels: Projection<Shelf> {
    @Projected(\Shelf.labels) var labels
    @Projected(\Shelf.counts) var counts
}
extension ShelfLabels: @unchecked Sendable {}

/// Issue 27: optional element types in `List`, `MutableSet` and `Map`.
@Suite("Optional elements")
struct OptionalElementTests {
    static func filled(_ store: Store) throws -> (Shelf, Dog) {
        let shelf = Shelf(), rex = Dog()
        shelf.id = 1
        rex.name = "Rex"
        shelf.labels.append(contentsOf: ["a", nil, "b"])
        shelf.sizes.insert(nil)
        shelf.sizes.insert(3)
        shelf.sizes.insert(nil)
        shelf.counts["none"] = .some(nil)
        shelf.counts["one"] = 1
        shelf.pets["rex"] = rex
        shelf.pets["nobody"] = .some(nil)
        try store.write { store.add(shelf) }
        return (shelf, rex)
    }

    @Test func unmanagedAndManagedValuesReadBack() throws {
        let store = try scratchStore()
        let (shelf, rex) = try Self.filled(store)
        #expect(Array(shelf.labels) == ["a", nil, "b"])
        #expect(Array(shelf.sizes) == [nil, 3])
        #expect(shelf.counts.keys == ["none", "one"])
        #expect(shelf.counts.values == [nil, 1])
        #expect(shelf.counts["none"] == .some(nil))
        #expect(shelf.counts["missing"] == nil)
        #expect(shelf.pets["rex"]??.name == "Rex")
        #expect(shelf.pets.count == 2)
        try store.write {
            shelf.labels[0] = nil
            shelf.sizes.remove(nil)
            shelf.counts["one"] = .some(nil)
        }
        #expect(Array(shelf.labels) == [nil, nil, "b"])
        #expect(Array(shelf.sizes) == [3])
        #expect(shelf.counts.values == [nil, nil])
        // A deleted target reads nil; its key stays.
        try store.write { store.delete(rex) }
        #expect(shelf.pets.keys == ["nobody", "rex"])
        #expect(shelf.pets.values.allSatisfy { $0 == nil })
    }

    @Test func schemaRecordsOptionalElements() throws {
        let store = try scratchStore()
        _ = try Self.filled(store)
        let schema = try #require(store.committedState().schema.first { $0.name == "Shelf" })
        let properties = Dictionary(uniqueKeysWithValues: schema.properties.map { ($0.name, $0) })
        #expect(properties["labels"]?.isOptional == true && properties["labels"]?.collection == .list)
        #expect(properties["sizes"]?.isOptional == true && properties["sizes"]?.collection == .set)
        #expect(properties["counts"]?.isOptional == true && properties["counts"]?.type == .int)
        #expect(properties["pets"]?.objectType == "Dog" && properties["pets"]?.collection == .map)
    }

    @Test func journalRoundTripsNils() throws {
        let url = try JournalFixtures.journalURL("optional-elements")
        do {
            let store = try Store(configuration: .init(fileURL: url, durability: .none))
            _ = try Self.filled(store)
        }
        let reopened = try Store(configuration: .init(fileURL: url, durability: .none))
        let shelf = try #require(reopened.object(ofType: Shelf.self, forPrimaryKey: 1))
        #expect(Array(shelf.labels) == ["a", nil, "b"])
        #expect(Array(shelf.sizes) == [nil, 3])
        #expect(shelf.counts.values == [nil, 1])
        #expect(shelf.pets["rex"]??.name == "Rex")
        #expect(shelf.pets["nobody"] == .some(nil))
    }

    @Test func queriesSeeNilElements() throws {
        let store = try scratchStore()
        _ = try Self.filled(store)
        let other = Shelf()
        other.id = 2
        other.labels.append("c")
        try store.write { store.add(other) }
        let shelves = store.objects(Shelf.self)
        #expect(shelves.filter(#Predicate<Shelf> { $0.labels.contains(nil) }).map(\.id) == [1])
        #expect(shelves.filter(#Predicate<Shelf> { $0.labels.contains("c") }).map(\.id) == [2])
        #expect(shelves.filter(#Predicate<Shelf> { $0.sizes.contains(3) }).map(\.id) == [1])
    }

    @Test func projectionsAndObservationCarryNils() async throws {
        let store = try scratchStore()
        let (shelf, rex) = try Self.filled(store)
        let projected = try #require(store.objects(ShelfLabels.self).first)
        #expect(Array(projected.labels) == ["a", nil, "b"])
        #expect(projected.counts["none"] == .some(nil))

        let labels = StreamProbe(shelf.labels.changes())
        let pets = StreamProbe(shelf.pets.changes(keyPaths: [\.?.name]))
        #expect(await labels.next().map(Self.indexes) == "initial")
        #expect(await pets.next().map(Self.indexes) == "initial")
        try store.write { shelf.labels.append(nil) }
        #expect(await labels.next().map(Self.indexes) == "[] [3] []")
        try store.write { rex.name = "Max" }
        #expect(await pets.next().map(Self.indexes) == "[] [] [1]")
        try store.write { store.delete(rex) }
        #expect(await pets.next().map(Self.indexes) == "[] [] [1]")
    }

    static func indexes<C>(_ change: CollectionChange<C>) -> String {
        switch change {
        case .initial: "initial"
        case let .update(_, deletions, insertions, modifications): "\(deletions) \(insertions) \(modifications)"
        case .error: "error"
        }
    }

    @Test func theChronicleToolShowsNils() throws {
        let url = try JournalFixtures.journalURL("optional-elements-cli")
        do {
            let store = try Store(configuration: .init(fileURL: url, durability: .none))
            _ = try Self.filled(store)
        }
        let run = try CLITests.run(["state", url.path])
        #expect(run.status == 0)
        #expect(run.out.contains(#"["a", nil, "b"]  {nil, 3}  [none: nil, one: 1]  [nobody: nil, rex: →#1]"#))
    }
}
