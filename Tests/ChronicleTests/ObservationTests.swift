import Foundation
import ChronicleTesting
import Observation
import Testing
@testable import Chronicle

/// Issue 6: change streams filtered by projected key paths.
@Suite("Observation", .timeLimit(.minutes(1)))
struct ObservationTests {
    /// Waits (polling) until `condition` holds, failing after `seconds`:
    /// 120 by default, as `CallbackObservationTests.eventually` waits —
    /// with the whole suite running on two cores, a task can wait more
    /// than 5 s for a thread of the cooperative pool (seen once in about
    /// eight full runs), and more than 30 s (`observingChanges`, once, in
    /// a CI run on 2026-12-02). A condition that holds returns at once.
    static func eventually(_ seconds: Double = 120, _ condition: @Sendable () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    static func names(_ change: ObjectChange<some Sendable>?) -> [String]? {
        if case .change(_, let properties)? = change { return properties.map(\.name) }
        return nil
    }

    // The seeds' "React to Changes to a Class Projection", with `store` for `realm`.
    @Test func seedProjectionListenerFiresForFirstNameOnly() async throws {
        let (store, jason) = try ProjectionTests.seeded()
        let received = StreamProbe<String>()
        let projectedPerson = store.objects(PersonProjection.self).first(where: { $0.firstName == "Jason" })!
        let token = projectedPerson.observe(keyPaths: ["firstName"], { change in
            switch change {
            case .change(let object, let properties):
                for property in properties {
                    received.record("Property '\(property.name)' of object \(object.firstName) changed to '\(property.newValue!)'")
                }
            case .error(let error):
                received.record("An error occurred: \(error)")
            case .deleted:
                received.record("The object was deleted.")
            }
        })
        // Not projected, or not the observed key path: no notification.
        try store.write { jason.lastName = "Smith" }
        try store.write { jason.friends.append(Person()) }
        await received.expectNoChange()
        // Now update to trigger the notification
        try store.write {
            projectedPerson.firstName = "David"
        }
        #expect(await received.next()?.hasSuffix("changed to 'David'") == true)
        // (Waiting first: changes the callback has not consumed yet coalesce.)
        try store.write { jason.firstName = "Jay" }   // directly on the base object
        #expect(await received.next()?.hasSuffix("changed to 'Jay'") == true)
        token.invalidate()
    }

    @Test func filteringByKeyPathAndByString() throws {
        let store = try scratchStore()
        let person = Person()
        try store.write { store.add(person) }
        let byKeyPath = person.changes(keyPaths: [\.lastName])
        let byString = try person.changes(keyPaths: ["lastName"])
        try store.write { person.firstName = "ignored" }
        #expect(byKeyPath.subscription.observer.buffer.pendingCount == 0)
        #expect(byString.subscription.observer.buffer.pendingCount == 0)
        try store.write { person.lastName = "seen" }
        #expect(byKeyPath.subscription.observer.buffer.pendingCount == 1)
        #expect(byString.subscription.observer.buffer.pendingCount == 1)
    }

    @Test(.freshStore) func noKeyPathsObservesEveryOwnPropertyButNotNestedOnes() async throws {
        let store = TestStore.current
        let person = Person(), friend = Person()
        person.friends.append(friend)
        person.address = Address()
        try store.write { store.add(person) }
        let all = StreamProbe(person.changes())
        try store.write { friend.firstName = "nested" }      // a friend's property: not own
        try store.write { person.address?.city = "Oslo" }    // embedded object's property: not own
        await all.expectNoChange()
        try store.write { person.lastName = "own" }
        #expect(Self.names(await all.next()) == ["lastName"])
    }

    /// A nested observer is filed under every object it watches; a commit
    /// that changes two of them must wake it once, with one change.
    @Test func anObserverMatchedThroughTwoObjectsIsWokenOnce() async throws {
        let store = try scratchStore()
        let owner = Employee()
        let rex = Dog()
        let fido = Dog()
        owner.dogs.append(rex)
        owner.dogs.append(fido)
        try store.write { store.add(owner) }
        let stream = try owner.changes(keyPaths: ["dogs.name"])
        let buffer = stream.subscription.observer.buffer
        let consumer = Task {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next()
        }
        while !buffer.hasWaiter { await Task.yield() }
        try store.write {
            rex.name = "Rex"
            fido.name = "Fido"
        }
        let change = await consumer.value
        guard case .change(_, let properties)? = change else { Issue.record("no change"); return }
        #expect(properties.map(\.name) == ["dogs"])
        #expect(buffer.pendingCount == 0, "a second wake-up for the same commit")
    }

    @Test func nestedPathsFollowLinksAndLists() async throws {
        let store = try scratchStore()
        let owner = Employee()
        let rex = Dog()
        owner.dogs.append(rex)
        try store.write { store.add(owner) }
        var dogs = try owner.changes(keyPaths: ["dogs"]).makeAsyncIterator()
        var dogNames = try owner.changes(keyPaths: ["dogs.name"]).makeAsyncIterator()
        try store.write { rex.name = "Rex" }
        let added = Dog()
        try store.write { owner.dogs.append(added) }
        try store.write { added.name = "New" }     // registered after the list changed
        try store.write { rex.breed = "Lab" }      // not observed anywhere
        #expect(Self.names(await dogs.next()) == ["dogs"])
        let nameChanges = await dogNames.next()
        guard case .change(_, let properties)? = nameChanges else { Issue.record("no change"); return }
        // Coalesced: three commits touched `dogs` or a dog's name.
        #expect(properties.map(\.name) == ["dogs"])
        #expect((properties.first?.oldValue as? List<Dog>)?.count == 1)
        #expect((properties.first?.newValue as? List<Dog>)?.map(\.name) == ["Rex", "New"])
    }

    @Test func projectionsReportOnlyTheProjectedPropertiesThatDependOnAChange() throws {
        let (store, jason) = try ProjectionTests.seeded()
        let projection = SharedBaseProjection(projecting: jason)
        let stream = projection.changes()
        let buffer = stream.subscription.observer.buffer
        try store.write { jason.lastName = "unprojected" }
        #expect(buffer.pendingCount == 0, "a base property outside every dependency set wakes no one")
        try store.write { jason.firstName = "Jay" }
        #expect(buffer.pendingCount == 2)   // first and shout share firstName
        try store.write { jason.address?.city = "Bergen" }
        #expect(buffer.pendingCount == 3)   // + homeCity (key-path resolution)
        try store.write { jason.friends[0].firstName = "Mia" }
        #expect(buffer.pendingCount == 4)   // + friendNames (collection mapping)
    }

    /// An object stream's old and new values, of every kind of property,
    /// are what the object read in the states before and after the commit:
    /// an optional, an enum, a double, a date, and a link, whose object is
    /// frozen in its state (the old buddy renamed in the same commit still
    /// reads its old name).
    @Test func anObjectStreamReportsEachKindsValuesBeforeAndAfter() async throws {
        let store = try scratchStore()
        let walker = Walker(), rex = Walker(), fido = Walker()
        walker.id = 1
        rex.id = 2
        rex.name = "Rex"
        fido.id = 3
        fido.name = "Fido"
        walker.buddy = rex
        walker.score = 1.5
        try store.write { store.add(walker); store.add(fido) }
        var changes = try walker.changes(keyPaths: ["nickname", "mood", "score", "birthday", "buddy"]).makeAsyncIterator()
        try store.write {
            walker.nickname = "Nick"
            walker.mood = .happy
            walker.score = 2.5
            walker.birthday = Date(timeIntervalSince1970: 1_000)
            walker.buddy = fido
            rex.name = "Rex II"
        }
        guard case .change(_, let properties)? = await changes.next() else { Issue.record("no change"); return }
        let byName = Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0) })
        #expect(properties.map(\.name) == ["nickname", "mood", "score", "birthday", "buddy"])
        // An optional's `nil` is reported as a value (the property's), not as no value.
        #expect(byName["nickname"]?.oldValue.map { "\($0)" } == "nil")
        #expect(byName["nickname"]?.newValue as? String? == "Nick")
        #expect(byName["mood"]?.oldValue as? WalkerMood == .calm && byName["mood"]?.newValue as? WalkerMood == .happy)
        #expect(byName["score"]?.oldValue as? Double == 1.5 && byName["score"]?.newValue as? Double == 2.5)
        #expect(byName["birthday"]?.oldValue.map { "\($0)" } == "nil")
        #expect(byName["birthday"]?.newValue as? Date? == Date(timeIntervalSince1970: 1_000))
        let before = try #require(byName["buddy"]?.oldValue as? Walker?), after = try #require(byName["buddy"]?.newValue as? Walker?)
        #expect(before?.name == "Rex" && before?.isFrozen == true, "the old buddy as the state before the commit has it")
        #expect(after?.name == "Fido" && after?.isFrozen == true)
    }

    @Test func projectedValuesAreReportedTransformed() async throws {
        let (store, jason) = try ProjectionTests.seeded()
        var changes = SharedBaseProjection(projecting: jason).changes(keyPaths: [\.shout, \.homeCity]).makeAsyncIterator()
        try store.write { jason.firstName = "jay" }
        guard case .change(_, let properties)? = await changes.next() else { Issue.record("no change"); return }
        #expect(properties.map(\.name) == ["shout"])
        #expect(properties.first?.oldValue as? String == "JASON" && properties.first?.newValue as? String == "JAY")
        try store.write { jason.address = nil }
        guard case .change(_, let moved)? = await changes.next() else { Issue.record("no change"); return }
        #expect(moved.map(\.name) == ["homeCity"])
        #expect(moved.first?.oldValue as? String == "Oslo")
        #expect(moved.first.map { $0.newValue as? String } == .some(nil))
    }

    @Test func unknownKeyPathsAreErrorsAtTheCall() throws {
        let (store, jason) = try ProjectionTests.seeded()
        _ = store
        #expect(throws: ObservationError.unknownKeyPath("nope", type: "Person")) { try jason.changes(keyPaths: ["nope"]) }
        #expect(throws: ObservationError.unknownKeyPath("address.nope", type: "Person")) { try jason.changes(keyPaths: ["address.nope"]) }
        #expect(throws: ObservationError.self) { try PersonProjection(projecting: jason).changes(keyPaths: ["lastName"]) }
        #expect(throws: ObservationError.self) { try store.objects(Person.self).changes(keyPaths: ["nope"]) }
    }

    @Test func changesArriveInCommitOrderWithoutLossUnderEightWriters() async throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        let stream = counter.changes(keyPaths: [\.value])
        let collector = Task {
            var seen: [Int] = []
            for await change in stream {
                guard case .change(_, let properties) = change else { continue }
                for property in properties {
                    seen.append((property.oldValue as? Int) ?? -1)
                    seen.append((property.newValue as? Int) ?? -1)
                }
                if (properties.last?.newValue as? Int) == 800 { break }
            }
            return seen
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<100 { try? await store.asyncWrite { counter.value += 1 } } }
            }
        }
        let seen = await collector.value
        // Pairs of (old, new): each old is the previous new (no gap), in order,
        // even where changes coalesced.
        #expect(seen.first == 0 && seen.last == 800)
        for index in stride(from: 2, to: seen.count, by: 2) {
            #expect(seen[index] == seen[index - 1], "gap at \(index)")
        }
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func cancellingOrDroppingAStreamFreesItsRegistration() async throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        let consumer = Task {
            for await _ in counter.changes() {}
            return true
        }
        #expect(await Self.eventually { store.observers.count == 1 })
        consumer.cancel()
        #expect(await consumer.value)
        #expect(await Self.eventually { store.observers.count == 0 })
        do {
            let stream = store.objects(Counter.self).changes()
            #expect(store.observers.count == 1)
            _ = stream
        }
        #expect(store.observers.count == 0, "dropping an unread stream unregisters it")
        let token = counter.observe { _ in }
        #expect(await Self.eventually { store.observers.count == 1 })
        token.invalidate()
        #expect(await Self.eventually { store.observers.count == 0 })
    }

    @Test func aSlowConsumerHoldsBoundedMemory() throws {
        let store = try scratchStore()
        let person = Person()
        try store.write { store.add(person) }
        let stream = person.changes()
        for index in 0..<2_000 {
            try store.write {
                person.firstName = "f\(index)"
                if index % 3 == 0 { person.lastName = "l\(index)" }
            }
        }
        let buffer = stream.subscription.observer.buffer
        #expect(buffer.pendingCount == 2, "one pending change per property, however many commits")
    }

    @Test(.freshStore) func deletionEndsTheStreamAfterDeleted() async throws {
        let store = TestStore.current
        let person = Person()
        try store.write { store.add(person) }
        let probe = StreamProbe(person.changes())
        try store.write { person.firstName = "last words" }
        #expect(Self.names(await probe.next()) == ["firstName"])
        try store.write { store.delete(person) }
        guard case .deleted? = await probe.next() else { Issue.record("expected .deleted"); return }
        await probe.expectFinished()
    }

    @Test func aStreamRegisteredBeforeACommitSeesIt() async throws {
        let store = try scratchStore()
        let person = Person()
        try store.write { store.add(person) }
        let stream = person.changes()
        try store.write { person.firstName = "early" }
        var iterator = stream.makeAsyncIterator()   // iteration starts after the commit
        #expect(Self.names(await iterator.next()) == ["firstName"])
    }

    @Test func observingFrozenObjectsIsAnError() async {
        await #expect(processExitsWith: .failure) {
            let store = try Store(configuration: .inMemory())
            let person = Person()
            try store.write { store.add(person) }
            _ = person.freeze().changes()
        }
    }
}

final class SharedBaseProjection: Projection<Person> {
    @Projected(\Person.firstName) var first
    @Projected(\Person.firstName.localizedUppercase) var shout
    @Projected(\Person.address?.city) var homeCity
    @Projected(\Person.friends.projectTo.firstName) var friendNames: ProjectedCollection<String>
}
extension SharedBaseProjection: @unchecked Sendable {}

@Suite("Collection observation", .timeLimit(.minutes(1)))
struct CollectionObservationTests {
    /// Applies an update's index arrays to the previous contents.
    static func apply(_ deletions: [Int], _ insertions: [Int], to old: [Int], new: [Int]) -> [Int] {
        var result = old
        for index in deletions.sorted(by: >) { result.remove(at: index) }
        for index in insertions.sorted() { result.insert(new[index], at: index) }
        return result
    }

    @Test(arguments: [UInt64(11), 12, 13])
    func filteredSortedResultsReportIndexesThatReplayTheChange(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let store = try scratchStore()
        let query = store.objects(Counter.self).filter(#Predicate { $0.value % 3 != 0 || $0.value > 50 }).sorted(by: \.value)
        func snapshot() -> [Int] { query.map(\.id) }
        var iterator = query.changes().makeAsyncIterator()
        guard case .initial? = await iterator.next() else { Issue.record("no initial"); return }
        var previous = snapshot()
        var values: [Int: Int] = [:]
        for _ in 0..<60 {
            try store.write {
                for _ in 0..<Int(rng.next() % 4 + 1) {
                    let id = Int(rng.next() % 25)
                    if let existing = store.object(ofType: Counter.self, forPrimaryKey: id) {
                        if rng.next() % 3 == 0 {
                            store.delete(existing)
                            values[id] = nil
                        } else {
                            existing.value = Int(rng.next() % 100)
                            values[id] = existing.value
                        }
                    } else {
                        let counter = Counter()
                        counter.id = id
                        counter.value = Int(rng.next() % 100)
                        store.add(counter)
                        values[id] = counter.value
                    }
                }
            }
            let current = snapshot()
            if current == previous { continue }
            guard case .update(_, let deletions, let insertions, let modifications)? = await iterator.next() else {
                Issue.record("expected an update")
                return
            }
            #expect(Self.apply(deletions, insertions, to: previous, new: current) == current)
            #expect(modifications.allSatisfy { previous.indices.contains($0) })
            previous = current
        }
    }

    @Test func modificationsAreOldIndexesOfChangedElements() async throws {
        let store = try scratchStore()
        try store.write {
            for id in 0..<3 {
                let counter = Counter()
                counter.id = id
                store.add(counter)
            }
        }
        var iterator = store.objects(Counter.self).changes(keyPaths: [\.value]).makeAsyncIterator()
        _ = await iterator.next()
        try store.write {
            store.delete(store.object(ofType: Counter.self, forPrimaryKey: 0)!)
            store.object(ofType: Counter.self, forPrimaryKey: 2)!.value = 9
        }
        guard case .update(let results, let deletions, let insertions, let modifications)? = await iterator.next() else {
            Issue.record("expected an update")
            return
        }
        #expect(deletions == [0] && insertions == [] && modifications == [2])
        #expect(results.count == 2)
    }

    @Test func listsReportInsertionsDeletionsAndElementChanges() async throws {
        let store = try scratchStore()
        let owner = Employee()
        let a = Dog(), b = Dog()
        owner.dogs.append(contentsOf: [a, b])
        try store.write { store.add(owner) }
        var iterator = try owner.dogs.changes(keyPaths: ["name"]).makeAsyncIterator()
        _ = await iterator.next()
        try store.write { owner.dogs.remove(at: 0) }
        guard case .update(_, let deletions, _, _)? = await iterator.next() else { Issue.record("no update"); return }
        #expect(deletions == [0])
        try store.write { b.name = "Bee" }
        guard case .update(_, _, _, let modifications)? = await iterator.next() else { Issue.record("no update"); return }
        #expect(modifications == [0])
        try store.write { b.breed = "not observed" }
        try store.write { owner.dogs.append(Dog()) }
        guard case .update(_, let d, let i, let m)? = await iterator.next() else { Issue.record("no update"); return }
        #expect(d == [] && i == [1] && m == [])
    }

    @Test func projectedCollectionsFireWhenAMappedPropertyChanges() async throws {
        let (store, jason) = try ProjectionTests.seeded()
        let names = PersonProjection(projecting: jason).firstFriendsName
        var iterator = names.changes().makeAsyncIterator()
        _ = await iterator.next()
        try store.write { jason.friends[1].lastName = "unmapped" }
        try store.write { jason.friends[1].firstName = "Nina" }
        guard case .update(let collection, _, _, let modifications)? = await iterator.next() else { Issue.record("no update"); return }
        #expect(modifications == [1] && Array(collection) == ["Marie", "Nina"])
    }
}

@Suite("Observation framework bridge", .timeLimit(.minutes(1)))
struct ObservationBridgeTests {
    @Test func withObservationTrackingSeesCommitsToPropertiesItRead() async throws {
        let (store, jason) = try ProjectionTests.seeded()
        let observed = Observed(PersonProjection(projecting: jason))
        let fired = StreamProbe<String>()
        withObservationTracking {
            _ = observed.firstName
        } onChange: {
            fired.record("firstName")
        }
        try store.write { jason.lastName = "not read" }
        try store.write { jason.address?.city = "not read either" }
        await fired.expectNoChange()
        try store.write { jason.firstName = "David" }
        #expect(await fired.next() == "firstName")
        #expect(observed.firstName == "David")
    }

    @Test func nestedValuesAreTrackedThroughProjections() async throws {
        let (store, jason) = try ProjectionTests.seeded()
        let observed = Observed(PersonProjection(projecting: jason))
        let fired = StreamProbe<String>()
        withObservationTracking {
            _ = observed.homeCity          // \Person.address?.city
        } onChange: {
            fired.record("homeCity")
        }
        try store.write { jason.address?.city = "Bergen" }
        #expect(await fired.next() == "homeCity")
        #expect(observed.homeCity == "Bergen")
    }

    @Test(.freshStore) func objectsTrackTheirOwnProperties() async throws {
        let store = TestStore.current
        let counter = Counter()
        try store.write { store.add(counter) }
        let observed = Observed(counter)
        let fired = StreamProbe<Int>()
        withObservationTracking { _ = observed.value } onChange: { fired.record(1) }
        try store.write { counter.value = 1 }
        #expect(await fired.next() == 1)
    }
}
