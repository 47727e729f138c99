import Foundation
import ChronicleTesting
import Testing
@testable import Chronicle

/// Issue 27: `observe(keyPaths:on:_:)` callbacks on objects, projections and
/// every collection, delivered on the caller's actor.
@Suite("Callback observation", .timeLimit(.minutes(1)))
struct CallbackObservationTests {
    /// Waits (polling) until an actor's state satisfies `condition`.
    static func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(120)   // generous: the whole suite can stall this process for a minute on two cores
        while Date() < deadline {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return await condition()
    }

    /// Waits on the main actor (where the callbacks run) until `condition` holds.
    @MainActor static func mainEventually(_ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(120)   // generous: the whole suite can stall this process for a minute on two cores
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }

    // The Realm pattern that did not compile in Swift 6: a main-actor
    // callback that mutates captured main-actor state.
    @MainActor @Test func mainActorCallbackMutatesCapturedState() async throws {
        let store = try scratchStore()
        let person = Person()
        try store.write { store.add(person) }
        var names: [String] = []
        var deleted = false
        let token = person.observe(keyPaths: [\.firstName]) { change in
            MainActor.assertIsolated()
            switch change {
            case .change(let person, _): names.append(person.firstName)
            case .deleted: deleted = true
            case .error: break
            }
        }
        try store.write { person.lastName = "ignored" }
        try store.write { person.firstName = "Ann" }
        #expect(await Self.mainEventually { names == ["Ann"] })
        try store.write { store.delete(person) }
        #expect(await Self.mainEventually { deleted })
        token.invalidate()
    }

    @MainActor @Test func mainActorCollectionCallbacksCountChanges() async throws {
        let store = try scratchStore()
        let owner = Employee()
        try store.write { store.add(owner) }
        var results: [String] = [], list: [String] = [], set: [String] = [], map: [String] = [], links: [String] = []
        func record(_ change: CollectionChange<some Sendable>, into log: inout [String]) {
            switch change {
            case .initial: log.append("initial")
            case let .update(_, deletions, insertions, modifications): log.append("\(deletions) \(insertions) \(modifications)")
            case .error: log.append("error")
            }
        }
        let holder = AllTypes()
        try store.write { store.add(holder) }
        let tokens = [
            store.objects(Dog.self).observe { record($0, into: &results) },
            owner.dogs.observe(keyPaths: [\.name]) { record($0, into: &list) },
            holder.tags.observe { record($0, into: &set) },
            holder.scores.observe { record($0, into: &map) },
        ]
        #expect(await Self.mainEventually { [results, list, set, map].allSatisfy { $0 == ["initial"] } })
        let dog = Dog()
        try store.write {
            owner.dogs.append(dog)
            holder.tags.insert("a")
            holder.scores["x"] = 1
        }
        let linkToken = dog.person.observe { record($0, into: &links) }
        #expect(await Self.mainEventually {
            results == ["initial", "[] [0] []"] && list == ["initial", "[] [0] []"]
                && set == ["initial", "[] [0] []"] && map == ["initial", "[] [0] []"] && links == ["initial"]
        })
        try store.write { dog.weight = 3 }          // not observed by the list's key path
        #expect(await Self.mainEventually { results.last == "[] [] [0]" })   // no key paths: any property
        try store.write { dog.name = "Rex" }
        #expect(await Self.mainEventually { list == ["initial", "[] [0] []", "[] [] [0]"] && results.count == 4 })
        try store.write { owner.dogs.remove(at: 0) }
        #expect(await Self.mainEventually { links == ["initial"] + ["[0] [] []"] })
        _ = (tokens, linkToken)
    }

    @MainActor @Test func projectionCallbackOnTheMainActor() async throws {
        let (store, jason) = try ProjectionTests.seeded()
        let projection = PersonProjection(projecting: jason)
        var cities: [String?] = []
        let token = projection.observe(keyPaths: [\.homeCity]) { change in
            if case .change(let p, _) = change { cities.append(p.homeCity) }
        }
        try store.write { jason.firstName = "not observed" }
        try store.write { jason.address?.city = "Bergen" }
        #expect(await Self.mainEventually { cities == ["Bergen"] })
        token.invalidate()
    }

    /// A view model on a custom actor: the callback runs on the actor and
    /// mutates its state without `await`.
    actor Tally {
        var count = 0
        var token: NotificationToken?
        func start(_ counter: Counter) {
            token = counter.observe(keyPaths: ["value"], on: self) { _ in
                self.assertIsolated()
                self.count += 1
            }
        }
        func start(_ results: Results<Counter>) {
            token = results.observe(on: self) { _ in self.count += 1 }
        }
        func stop() { token?.invalidate() }
    }

    @Test func customActorCallbackRunsOnTheActor() async throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        let tally = Tally()
        await tally.start(counter)
        try store.write { counter.value = 1 }
        #expect(await Self.eventually { await tally.count == 1 })
        await tally.stop()
        try store.write { counter.value = 2 }
        try await Task.sleep(for: .milliseconds(100))
        #expect(await tally.count == 1)

        let results = Tally()
        await results.start(store.objects(Counter.self))
        try store.write { counter.value = 3 }
        #expect(await Self.eventually { await results.count == 2 })     // .initial, then the update
    }

    /// A caller names the actor: the callback runs there, not on the caller's.
    @Test func callerNamesTheDeliveringActor() async throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        let tally = Tally()
        let seen = Locked(0)
        let token = await counter.observe(keyPaths: [\.value], on: tally) { _ in
            tally.assertIsolated()
            seen.withLock { $0 += 1 }
        }
        try store.write { counter.value = 1 }
        #expect(await Self.eventually { seen.withLock { $0 } == 1 })
        token.invalidate()
    }

    /// From code on no actor, the callback still runs on the main actor
    /// (the Realm SDK's default: the main thread), never on a task of its
    /// own where a block made on the main actor would run off it.
    @Test func nonisolatedCallerGetsMainActorDelivery() async throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        let objectChanges = Locked(0), resultsChanges = Locked(0)
        let token = counter.observe(keyPaths: [\.value]) { _ in
            MainActor.preconditionIsolated()          // stops the test run if not
            objectChanges.withLock { $0 += 1 }
        }
        let listToken = store.objects(Counter.self).observe { _ in
            MainActor.preconditionIsolated()
            resultsChanges.withLock { $0 += 1 }
        }
        try store.write { counter.value = 1 }
        // The object's change, and the results' `.initial` (which, when the
        // main actor is busy, may already hold the write: then no update).
        #expect(await Self.eventually { objectChanges.withLock { $0 } == 1 && resultsChanges.withLock { $0 } >= 1 })
        _ = (token, listToken)
    }

    @Test func checkedKeyPathsThrowForATypo() throws {
        let store = try scratchStore()
        let person = Person(), holder = AllTypes(), owner = Employee()
        try store.write { store.add([person, holder, owner]) }
        #expect(throws: ObservationError.unknownKeyPath("nmae", type: "Person")) {
            _ = try person.observe(checkedKeyPaths: ["nmae"]) { _ in }
        }
        #expect(throws: ObservationError.unknownKeyPath("nmae", type: "Dog")) {
            _ = try owner.dogs.observe(checkedKeyPaths: ["nmae"]) { _ in }
        }
        #expect(throws: ObservationError.unknownKeyPath("nmae", type: "Person")) {
            _ = try store.objects(Person.self).observe(checkedKeyPaths: ["nmae"]) { _ in }
        }
        #expect(throws: ObservationError.unknownKeyPath("nmae", type: "Int")) {
            _ = try holder.scores.observe(checkedKeyPaths: ["nmae"]) { _ in }
        }
        let token = try person.observe(checkedKeyPaths: ["firstName"]) { _ in }
        token.invalidate()
    }

    @Test func uncheckedTypoStopsWithTheTypeAndName() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try scratchStore()
            let person = Person()
            try store.write { store.add(person) }
            _ = person.observe(keyPaths: ["nmae"]) { _ in }
        }.map { result in
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("'nmae' is not a persisted property of Person"))
            #expect(message.contains("observe(checkedKeyPaths:)"))
        }
    }

    /// Every collection's `changes()` is non-throwing without key paths and
    /// with typed key paths; only names throw.
    @Test func changesThrowOnlyForNames() async throws {
        let store = try scratchStore()
        let owner = Employee(), holder = AllTypes(), dog = Dog()
        try store.write { store.add([owner, holder]); owner.dogs.append(dog) }
        let streams: [any Sendable] = [
            store.objects(Dog.self).changes(), owner.dogs.changes(), holder.tags.changes(), holder.scores.changes(),
            dog.person.changes(), owner.dogs.changes(keyPaths: [\.name]), dog.person.changes(keyPaths: [\.firstName]),
        ]
        #expect(streams.count == 7)
        #expect(throws: ObservationError.self) { try holder.tags.changes(keyPaths: ["count"]) }
        #expect(throws: ObservationError.self) { try dog.person.changes(keyPaths: ["nope"]) }
        #expect(throws: ObservationError.self) { try holder.scores.changes(keyPaths: ["nope"]) }
    }
}

/// A model with a computed property over two persisted ones.
final class CallbackContact: Object {
    @Persisted var first = ""
    @Persisted var last = ""
    var full: String { "\(first) \(last)" }
}
extension CallbackContact: @unchecked Sendable {}

extension CallbackObservationTests {
    /// Observing a computed property observes every persisted property it
    /// reads, as ObservingChanges.md states.
    @Test func computedPropertyObservesWhatItReads() async throws {
        let store = try scratchStore()
        let contact = CallbackContact()
        try store.write { store.add(contact) }
        let probe = StreamProbe(contact.changes(keyPaths: [\.full]))
        try store.write { contact.first = "Ann" }
        #expect(ObservationTests.names(await probe.next()) == ["first"])
        try store.write { contact.last = "Lee" }
        #expect(ObservationTests.names(await probe.next()) == ["last"])
    }
}
