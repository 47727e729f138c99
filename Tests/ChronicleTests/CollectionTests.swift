import Foundation
import Testing
@testable import Chronicle

/// Issue 4: the seed "Collections" (002_…), statement by statement.
@Suite("Collections")
struct CollectionTests {
    static func dogs(_ names: [String], in store: Store) throws -> [Dog] {
        let dogs = names.map { name -> Dog in
            let dog = Dog()
            dog.name = name
            return dog
        }
        try store.write { store.add(dogs) }
        return dogs
    }

    @Test func collectionsAreHomogeneous() throws {
        let store = try scratchStore()
        _ = try Self.dogs(["Rex"], in: store)
        try store.write { store.add(Counter()) }
        let dogs = store.objects(Dog.self)
        #expect(dogs.count == 1)
        #expect(dogs.allSatisfy { type(of: $0) == Dog.self })
        #expect(store.objects(Counter.self).count == 1)
    }

    @Test func resultsAreImmutable() throws {
        let store = try scratchStore()
        let results = store.objects(Dog.self)
        // No API adds or removes elements: Results is not a mutable collection.
        #expect(!((results as Any) is any RangeReplaceableCollection))
        #expect(!((results as Any) is any MutableCollection))
        #expect((store.objects(Employee.self).first?.dogs as Any?).map { $0 is any RangeReplaceableCollection } != true)
    }

    @Test func liveResultsAndListsReflectALaterCommit() throws {
        let store = try scratchStore()
        let owner = Employee()
        try store.write { store.add(owner) }
        let results = store.objects(Dog.self).filter(#Predicate { $0.weight > 10 })
        let list = owner.dogs
        #expect(results.isEmpty && list.isEmpty)
        try store.write {
            let big = Dog()
            big.weight = 40
            owner.dogs.append(big)
        }
        #expect(results.count == 1)
        #expect(list.count == 1 && list.first?.weight == 40)
        try store.write { results.first!.weight = 5 }
        #expect(results.isEmpty)
    }

    @Test func unmanagedAndFrozenCollectionsAreNotLive() throws {
        let store = try scratchStore()
        let owner = Employee()
        let unmanaged = owner.dogs
        unmanaged.append(Dog())
        #expect(!unmanaged.isManaged && unmanaged.count == 1)
        try store.write { store.add(owner) }
        // The list read before adding stays a plain in-memory list.
        try store.write { owner.dogs.append(Dog()) }
        #expect(unmanaged.count == 1 && owner.dogs.count == 2)

        let frozenList = owner.dogs.freeze()
        let frozenResults = store.objects(Dog.self).freeze()
        try store.write { owner.dogs.append(Dog()) }
        #expect(frozenList.isFrozen && frozenList.count == 2)
        #expect(frozenResults.isFrozen && frozenResults.count == 2)
        #expect(frozenResults.thaw().count == 3)
        #expect(frozenList.thaw()?.count == 3)
        let frozenOwner = owner.freeze()
        try store.write { store.delete(owner) }
        #expect(frozenOwner.dogs.count == 3)
        #expect(frozenOwner.thaw() == nil)
    }

    @Test func unsortedResultsAreLazy() throws {
        let store = try scratchStore()
        try store.write {
            for index in 0..<20_000 {
                let counter = Counter()
                counter.id = index
                counter.value = index % 2
                store.add(counter)
            }
        }
        let odd = store.objects(Counter.self).filter(#Predicate { $0.value == 1 })
        let counter = EvaluationCounter()
        let firstTen = EvaluationCounter.$current.withValue(counter) { (0..<10).map { odd[$0].id } }
        #expect(firstTen == [1, 3, 5, 7, 9, 11, 13, 15, 17, 19])
        #expect(counter.examined <= 20, "examined \(counter.examined) of 20,000")
        let all = EvaluationCounter()
        EvaluationCounter.$current.withValue(all) { #expect(odd.count == 10_000) }
        #expect(all.examined < 20_000, "count resumes the earlier evaluation instead of starting over")
        let again = EvaluationCounter()
        EvaluationCounter.$current.withValue(again) { #expect(odd.count == 10_000) }
        #expect(again.examined == 0, "a second read of the same version is cached")
    }

    @Test func paginationReadsOnlyThePage() throws {
        let store = try scratchStore()
        try store.write {
            for index in 0..<5_000 {
                let counter = Counter()
                counter.id = index
                counter.value = 5_000 - index
                store.add(counter)
            }
        }
        let sorted = store.objects(Counter.self).sorted(by: \.value)
        let counting = EvaluationCounter()
        EvaluationCounter.$current.withValue(counting) { #expect(sorted.count == 5_000) }
        #expect(counting.examined == 0, "every object of a type is counted without a scan")
        #expect(sorted[0].id == 4_999, "reading any element evaluates (and sorts) the whole results")
        let page = EvaluationCounter()
        let ids = EvaluationCounter.$current.withValue(page) { (300..<400).map { sorted[$0].id } }
        #expect(page.examined == 0, "a page of an evaluated sorted Results evaluates nothing again")
        #expect(ids == Array((4_600..<4_700).reversed()))
    }

    @Test func indexedEqualityDoesNotScan() throws {
        let store = try scratchStore()
        try store.write {
            for index in 0..<2_000 {
                let counter = Counter()
                counter.id = index
                store.add(counter)
            }
        }
        let probe = EvaluationCounter()
        let hit = EvaluationCounter.$current.withValue(probe) {
            store.objects(Counter.self).filter(#Predicate { $0.id == 1_234 }).map(\.id)
        }
        #expect(hit == [1_234])
        #expect(probe.examined == 0, "the primary-key index answers an equality exactly")
    }

    @Test func linkingObjectsFollowTheOriginList() throws {
        let store = try scratchStore()
        let ann = Employee(), bob = Employee()
        let dog = Dog()
        ann.dogs.append(dog)
        try store.write { store.add(ann); store.add(bob) }
        #expect(dog.person.map(\._id) == [ann._id])
        try store.write { bob.dogs.append(dog) }
        #expect(Set(dog.person.map(\._id)) == [ann._id, bob._id])
        try store.write { ann.dogs.removeAll() }
        #expect(dog.person.map(\._id) == [bob._id])
        // LinkingObjects offers no mutation at all.
        #expect(!((dog.person as Any) is any RangeReplaceableCollection))
    }

    func describe<C: LiveCollection>(_ collection: C) -> String where C.Element == Dog {
        "\(collection.count):" + collection.map(\.name).joined(separator: ",")
    }

    @Test func genericCodeRunsOnEveryCollection() throws {
        let store = try scratchStore()
        let owner = Employee()
        let rex = Dog(), fido = Dog()
        rex.name = "Rex"
        fido.name = "Fido"
        owner.dogs.append(contentsOf: [rex, fido])
        try store.write { store.add(owner) }
        let holder = SetHolder()
        holder.dogs.insert(rex)
        try store.write { store.add(holder) }
        #expect(describe(store.objects(Dog.self).sorted(by: \.name)) == "2:Fido,Rex")
        #expect(describe(owner.dogs) == "2:Rex,Fido")
        #expect(describe(holder.dogs) == "1:Rex")
        let lovers = try #require(store.objects(Employee.self).first)
        _ = lovers
        #expect(rex.person.count == 1)

        let wrapped: [AnyLiveCollection<Dog>] = [
            AnyLiveCollection(store.objects(Dog.self)), AnyLiveCollection(owner.dogs), AnyLiveCollection(holder.dogs),
        ]
        #expect(wrapped.map(\.count) == [2, 2, 1])
        let owners = AnyLiveCollection(rex.person)
        #expect(owners.count == 1 && owners.first?._id == owner._id)
        try store.write { owner.dogs.append(Dog()) }
        #expect(wrapped[1].count == 3, "the wrapper is as live as what it wraps")
    }

    @Test func everyCollectionEditSurvivesReopen() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let store = try Store(configuration: .init(fileURL: url, durability: .none))
            let sample = AllTypes()
            try store.write { store.add(sample) }
            try store.write {
                sample.numbers.append(contentsOf: [1, 2, 3, 4])
                sample.numbers.insert(0, at: 0)       // 0 1 2 3 4
                sample.numbers.remove(at: 2)           // 0 1 3 4
                sample.numbers.move(from: 0, to: 3)    // 1 3 4 0
                sample.numbers[1] = 9                  // 1 9 4 0
                sample.numbers.swapAt(0, 3)            // 0 9 4 1
                sample.tags.formUnion(["a", "b", "c"])
                sample.tags.remove("b")
                sample.scores["x"] = 1
                sample.scores["y"] = 2
                sample.scores.removeObject(for: "x")
            }
            let other = AllTypes()
            other.id = 2
            try store.write {
                store.add(other)
                other.tags.formUnion(["c", "d"])
                sample.tags.formIntersection(other.tags)
            }
            try store.close()
        }
        let store = try Store(configuration: .init(fileURL: url, durability: .none))
        let sample = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: 0))
        #expect(Array(sample.numbers) == [0, 9, 4, 1])
        #expect(Array(sample.tags) == ["c"])
        #expect(sample.scores.keys == ["y"] && sample.scores["y"] == 2)
        let other = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: 2))
        #expect(sample.tags.isSubset(of: other.tags) && sample.tags.intersects(other.tags))
    }

    @Test func aggregatesAndDistinct() throws {
        let store = try scratchStore()
        let weights = [3, 10, 7, 10]
        _ = try Self.dogs(["a", "b", "c", "d"], in: store)
        try store.write {
            for (dog, weight) in zip(store.objects(Dog.self), weights) { dog.weight = weight }
        }
        let dogs = store.objects(Dog.self)
        #expect(dogs.min(of: \.weight) == 3 && dogs.max(of: \.weight) == 10)
        #expect(dogs.sum(of: \.weight) == 30 && dogs.average(of: \.weight) == 7.5)
        #expect(dogs.distinct(by: [\.weight]).count == 3)
        #expect(store.objects(Counter.self).average(of: \.value) == nil)
    }

    @Test func keyPathsThatReadNothingPersistedThrowWithTheirName() throws {
        let store = try scratchStore()
        do {
            _ = try store.objects(SetHolder.self).filtered(#Predicate { $0.note == "x" })
            Issue.record("expected unknownKeyPath")
        } catch let error as QueryError {
            guard case .unknownKeyPath(let name) = error else { Issue.record("\(error)"); return }
            #expect(name.contains("SetHolder"))
        }
        #expect(throws: QueryError.self) {
            try store.objects(SetHolder.self).sorted(using: [SortDescriptor(\SetHolder.note)])
        }
    }

    @Test func computedPropertiesAreEvaluatedObjectByObject() throws {
        let store = try scratchStore()
        _ = try Self.dogs(["Rex", "Fido", "Rover"], in: store)
        let r = try store.objects(Dog.self).filtered(#Predicate { $0.firstLetter == "R" })
        #expect(Set(r.map(\.name)) == ["Rex", "Rover"])
        let byLetter = try store.objects(Dog.self).sorted(using: [SortDescriptor(\Dog.firstLetter), SortDescriptor(\Dog.name)])
        #expect(byLetter.map(\.name) == ["Fido", "Rex", "Rover"])
    }

    @Test func sortDescriptorsSortStablyByEveryKey() throws {
        let store = try scratchStore()
        let dogs = try Self.dogs(["b", "a", "b", "a"], in: store)
        try store.write { for (index, dog) in dogs.enumerated() { dog.weight = index % 2 == 0 ? 1 : 2 } }
        let sorted = try store.objects(Dog.self).sorted(using: [SortDescriptor(\Dog.name), SortDescriptor(\Dog.weight, order: .reverse)])
        #expect(sorted.map { "\($0.name)\($0.weight)" } == ["a2", "a2", "b1", "b1"])
    }
}

final class SetHolder: Object {
    @Persisted var dogs: MutableSet<Dog>
    var note = ""     // not persisted
}
extension SetHolder: @unchecked Sendable {}
