import Foundation
import Testing
@testable import Chronicle

/// A model whose init reads a property after `super.init()`: a managed
/// handle must already be bound there (handles skip initial values).
final class Greeter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = "unset"
    @Persisted var tags = List<String>()
    var nameSeenInInit = ""

    required init() {
        super.init()
        nameSeenInInit = name
    }
}
extension Greeter: @unchecked Sendable {}

/// `Counter` with a property added: opening a journal written with
/// `Counter` migrates it.
enum Grown {
    final class Counter: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = 0
        @Persisted var note = ""
    }
}
extension Grown.Counter: @unchecked Sendable {}

@Suite("Managed handles")
struct HandleTests {
    @Test func handlesAreBoundFromInsideTheirInit() throws {
        let store = try scratchStore()
        try store.write {
            let greeter = Greeter()
            #expect(greeter.nameSeenInInit == "unset")
            greeter.id = 1
            greeter.name = "Ada"
            greeter.tags.append("x")
            store.add(greeter)
        }
        let handle = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 1))
        #expect(handle.isManaged)
        #expect(handle.nameSeenInInit == "Ada")
        #expect(handle.name == "Ada")
        #expect(Array(handle.tags) == ["x"])
        let fromResults = try #require(store.objects(Greeter.self).first)
        #expect(fromResults.nameSeenInInit == "Ada")
        // Unmanaged objects made after a handle still collect their own values.
        let fresh = Greeter()
        #expect(!fresh.isManaged)
        #expect(fresh.name == "unset")
        fresh.name = "Bob"
        #expect(fresh.name == "Bob")
    }

    // Handles made while reading a published state remember the object's
    // record and read it without the store's lock until the next commit.
    // These check that what they read is always what a fresh look-up reads.

    @Test func aRememberedRecordIsDroppedByTheNextCommit() throws {
        let store = try Self.storeWithGreeters(1...3) { "v1-\($0)" }
        let byKey = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 1))
        let fromIteration = Array(store.objects(Greeter.self))
        let fromSubscript = store.objects(Greeter.self)[1]
        #expect(byKey.name == "v1-1" && fromIteration.map(\.name) == ["v1-1", "v1-2", "v1-3"] && fromSubscript.name == "v1-2")
        try store.write {
            byKey.name = "v2-1"
            fromIteration[1].name = "v2-2"
        }
        #expect(byKey.name == "v2-1")
        #expect(fromIteration.map(\.name) == ["v2-1", "v2-2", "v1-3"])
        #expect(fromSubscript.name == "v2-2")
        // A commit from another thread is seen too.
        let other = Thread { try? store.write { store.object(ofType: Greeter.self, forPrimaryKey: 3)!.name = "v3-3" } }
        other.start()
        while store.object(ofType: Greeter.self, forPrimaryKey: 3)!.name != "v3-3" { Thread.sleep(forTimeInterval: 0.001) }
        #expect(fromIteration[2].name == "v3-3")
        try store.write { store.delete(fromIteration[0]) }
        #expect(fromIteration[0].isInvalidated && byKey.isInvalidated)
    }

    /// A store holding one greeter for each id of `ids`, named by `name`.
    static func storeWithGreeters(_ ids: ClosedRange<Int>, name: (Int) -> String) throws -> Store {
        let store = try scratchStore()
        try store.write {
            for id in ids {
                let greeter = Greeter()
                greeter.id = id
                greeter.name = name(id)
                store.add(greeter)
            }
        }
        return store
    }

    /// A store holding one greeter, id 1.
    static func storeWithOneGreeter(named name: String) throws -> Store {
        try storeWithGreeters(1...1) { _ in name }
    }

    @Test func everyWayOfIteratingGivesHandlesThatReadTheirOwnObject() throws {
        let store = try Self.storeWithGreeters(1...200) { "n\($0 % 7)-\($0)" }
        let all = store.objects(Greeter.self)
        let queries: [Results<Greeter>] = [
            all,                                                        // unfiltered scan
            all.filter(#Predicate { $0.id % 3 == 0 }),                  // translated scan
            all.filter(#Predicate { $0.id == 17 }),                     // primary-key index
            all.filter(#Predicate { $0.name.starts(with: "n2") }),      // string operator
            all.filter(#Predicate { $0.id > 50 }).sorted(by: \.name),   // sorted
        ]
        for results in queries {
            let handles = Array(results)
            #expect(!handles.isEmpty)
            for handle in handles {
                #expect(handle.name == "n\(handle.id % 7)-\(handle.id)")
            }
            // Stale after a commit that changes them.
            try store.write { for handle in handles { handle.name += "!" } }
            for handle in handles {
                #expect(handle.name == "n\(handle.id % 7)-\(handle.id)!")
            }
            try store.write { for handle in handles { handle.name.removeLast() } }
        }
    }

    // An iterator compiles its query once and resumes its scan every 64
    // elements: every batch must read the state the iteration began with.
    @Test func anIterationReadsOneStateAcrossItsBatches() throws {
        let store = try Self.storeWithGreeters(1...400) { "n\($0 % 7)-\($0)" }
        let all = store.objects(Greeter.self)
        let even = (1...450).filter { $0 % 2 == 0 }
        // Each query, the ids it matches, and those it matches after the change below.
        let queries: [(Results<Greeter>, [Int], [Int])] = [
            (all.filter(#Predicate { $0.id % 2 == 0 }),                          // translated
             even.filter { $0 <= 400 }, even),
            (all.filter(#Predicate { $0.id % 2 == 0 && $0.name.count > 5 }),     // partly opaque
             even.filter { $0 >= 100 && $0 <= 400 }, even.filter { ($0 >= 100 && $0 <= 200) || $0 > 400 }),
        ]
        for (results, wanted, wantedAfter) in queries {
            #expect(results.map(\.id) == wanted)
            var iterator = results.makeIterator()
            var ids: [Int] = []
            while ids.count < 70, let next = iterator.next() { ids.append(next.id) }
            // Renames the objects of the batches still to come so that the
            // opaque filter rejects them, and adds some that would match:
            // the iteration goes on in its own state.
            try store.write {
                for greeter in all where greeter.id > 200 { greeter.name = "x" }
                for id in 401...450 {
                    let greeter = Greeter()
                    greeter.id = id
                    greeter.name = "added-\(id)"
                    store.add(greeter)
                }
            }
            var rest: [Greeter] = []
            while let next = iterator.next() { rest.append(next) }
            #expect(ids + rest.map(\.id) == wanted)
            // Its handles are live all the same.
            #expect(rest.allSatisfy { $0.name == ($0.id > 200 ? "x" : "n\($0.id % 7)-\($0.id)") })
            // The next iteration reads the new state.
            #expect(results.map(\.id) == wantedAfter)
            try store.write {
                for greeter in all where greeter.id > 400 { store.delete(greeter) }
                for greeter in all where greeter.id > 200 { greeter.name = "n\(greeter.id % 7)-\(greeter.id)" }
            }
        }
    }

    // Each primitive type has its own read (`_get`), which converts the
    // stored value itself and leaves every other case to the generic read.

    /// Sets every primitive property of `object` from `n`.
    static func fill(_ object: AllTypes, _ n: Int) {
        object.bool = n % 2 == 1
        object.int = n
        object.int8 = Int8(n)
        object.int16 = Int16(n * 100)
        object.int32 = Int32(n * 10_000)
        object.int64 = Int64(n) << 40
        object.float = Float(n) / 4
        object.double = Double(n) / 8
        object.string = "s\(n)"
        object.data = Data([UInt8(n), 1, 2])
        object.date = Date(timeIntervalSinceReferenceDate: Double(n) * 1000)
        object.uuid = UUID(uuidString: "00000000-0000-4000-8000-0000000000\(10 + n)")!
        object.url = URL(string: "https://example.com/\(n)")!
        object.decimal = Decimal(n) / 10
        object.objectId = ObjectId(String(repeating: "0", count: 22) + "\(10 + n)")!
        object.unit = BusinessUnitEnum.allCases[n % 3]
    }

    /// The primitive properties of `object`, as `fill(_:_:)` with `n` sets them.
    static func primitives(_ object: AllTypes) -> [String] {
        [
            "\(object.bool)", "\(object.int)", "\(object.int8)", "\(object.int16)", "\(object.int32)", "\(object.int64)",
            "\(object.float)", "\(object.double)", object.string, "\(Array(object.data))", "\(object.date)",
            object.uuid.uuidString, object.url.absoluteString, "\(object.decimal)", "\(object.objectId)", object.unit.rawValue,
        ]
    }

    static func primitives(_ n: Int) -> [String] {
        let object = AllTypes()
        fill(object, n)
        return primitives(object)
    }

    @Test func everyPrimitiveTypeReadsLiveFrozenAndUnmanaged() throws {
        let store = try scratchStore()
        let added = AllTypes()
        added.id = 1
        Self.fill(added, 1)
        #expect(Self.primitives(added) == Self.primitives(1), "unmanaged")
        try store.write { store.add(added) }
        let iterated = try #require(Array(store.objects(AllTypes.self)).first)
        let byKey = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: 1))
        let frozen = byKey.freeze()
        for object in [added, iterated, byKey, frozen] {
            #expect(Self.primitives(object) == Self.primitives(1))
        }
        try store.write {
            Self.fill(byKey, 2)
            // Inside the write, the write's own values.
            for object in [added, iterated, byKey] { #expect(Self.primitives(object) == Self.primitives(2)) }
            #expect(Self.primitives(frozen) == Self.primitives(1))
        }
        for object in [added, iterated, byKey] { #expect(Self.primitives(object) == Self.primitives(2)) }
        #expect(Self.primitives(frozen) == Self.primitives(1))
        // The defaults, as a handle on a new object reads them.
        try store.write {
            let fresh = AllTypes()
            fresh.id = 2
            store.add(fresh)
        }
        let fresh = try #require(store.objects(AllTypes.self).filter(#Predicate { $0.id == 2 }).first)
        #expect(fresh.int == 0 && fresh.string == "" && fresh.unit == .sales && !fresh.bool)
    }

    @Test func insideAWriteARememberedRecordGivesWayToTheWrite() throws {
        let store = try Self.storeWithOneGreeter(named: "committed")
        let handle = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 1))
        #expect(handle.name == "committed")
        struct Abandon: Error {}
        #expect(throws: Abandon.self) {
            try store.write {
                handle.name = "pending"
                // Same published state, but this thread's write reads its own changes.
                #expect(handle.name == "pending")
                let madeInside = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 1))
                #expect(madeInside.name == "pending")
                #expect(store.objects(Greeter.self).first?.name == "pending")
                throw Abandon()
            }
        }
        // Rolled back: nothing was published, and the handles read the committed value.
        #expect(handle.name == "committed")
        #expect(store.objects(Greeter.self).first?.name == "committed")
    }

    @Test func handlesMadeInsideAWriteDoNotKeepItsStateAfterARollback() throws {
        let store = try Self.storeWithOneGreeter(named: "committed")
        struct Abandon: Error {}
        var madeInside: [Greeter] = []
        #expect(throws: Abandon.self) {
            try store.write {
                store.object(ofType: Greeter.self, forPrimaryKey: 1)!.name = "pending"
                madeInside = Array(store.objects(Greeter.self)) + [store.object(ofType: Greeter.self, forPrimaryKey: 1)!]
                throw Abandon()
            }
        }
        #expect(madeInside.map(\.name) == ["committed", "committed"])
    }

    @Test func frozenAndLiveHandlesReadTheirOwnVersions() throws {
        let store = try scratchStore()
        try store.write {
            let greeter = Greeter()
            greeter.id = 2
            greeter.name = "one"
            store.add(greeter)
        }
        let live = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 2))
        let frozen = store.objects(Greeter.self).freeze()[0]
        try store.write { live.name = "two" }
        #expect(live.name == "two")
        #expect(frozen.name == "one")
        try store.write { store.delete(live) }
        #expect(live.isInvalidated)
        #expect(frozen.name == "one")
    }

    // A live handle keeps its location in the instance; an unmanaged
    // instance made managed by `add`, and a frozen handle, get a binding.
    // These check that both kinds agree.

    @Test func anAddedObjectAndHandlesOnItAreOneObject() throws {
        let store = try scratchStore()
        let added = Greeter()
        added.id = 5
        added.name = "first"
        #expect(!added.isManaged)
        try store.write { store.add(added) }
        #expect(added.isManaged && !added.isFrozen)
        let byKey = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 5))
        let iterated = try #require(store.objects(Greeter.self).first)
        #expect(byKey.isManaged && !byKey.isFrozen && iterated.isManaged)
        #expect(byKey == added && iterated == added && Set([byKey, iterated, added]).count == 1)
        try store.write { byKey.name = "second" }
        #expect(added.name == "second" && iterated.name == "second")
        try store.write { added.tags.append("t") }
        #expect(Array(iterated.tags) == ["t"])
        let frozen = iterated.freeze()
        #expect(frozen.isFrozen && frozen != iterated && frozen.thaw() == added)
        try store.write { store.delete(iterated) }
        #expect(added.isInvalidated && byKey.isInvalidated && iterated.isInvalidated)
        #expect(frozen.name == "second" && !frozen.isInvalidated && frozen.thaw() == nil)
    }

    @Test func frozenResultsGiveHandlesOfTheirVersion() throws {
        let store = try Self.storeWithOneGreeter(named: "one")
        let frozen = store.objects(Greeter.self).freeze()
        let live = store.objects(Greeter.self)
        try store.write { live[0].name = "two" }
        let fromFrozen = Array(frozen)
        #expect(fromFrozen.map(\.name) == ["one"] && fromFrozen[0].isFrozen)
        #expect(Array(live).map(\.name) == ["two"] && !live[0].isFrozen)
        try store.write { store.delete(live[0]) }
        #expect(Array(frozen).map(\.name) == ["one"] && Array(live).isEmpty)
    }

    @Test func aLiveHandleOutlivesTheStoreRebindingItsClass() throws {
        let url = try JournalFixtures.journalURL()
        let before: UInt64
        do {
            let store = try ObjectModelTests.fileStore(url, types: [Counter.self])
            try store.write {
                let counter = Counter()
                counter.id = 1
                counter.value = 10
                store.add(counter)
            }
            before = store.version
            try store.close()
        }
        let store = try ObjectModelTests.fileStore(url, types: [Grown.Counter.self])
        let live = try #require(store.object(ofType: Grown.Counter.self, forPrimaryKey: 1))
        let iterated = Array(store.objects(Grown.Counter.self))
        // Before the migration the class's table has no `note`: reading
        // that version binds the class to its schema, in place of the
        // binding the live handles were made with (which they hold
        // unretained).
        #expect(store.version > before)
        let past = try store.frozen(at: before)
        for _ in 0..<3 {
            let old = try #require(past.object(ofType: Grown.Counter.self, forPrimaryKey: 1))
            #expect(old.value == 10)
            #expect(live.value == 10 && live.note == "" && iterated[0].value == 10)
            #expect(store.objects(Grown.Counter.self).first?.note == "")
        }
        try store.write { live.note = "grown" }
        #expect(iterated[0].note == "grown" && live.note == "grown")
        #expect(try #require(past.object(ofType: Grown.Counter.self, forPrimaryKey: 1)).value == 10)
    }

    @Test func onceReferenceKeepsTheFirstStore() {
        final class Box: Sendable { let n: Int; init(_ n: Int) { self.n = n } }
        let reference = OnceReference<Box>()
        #expect(reference.load() == nil)
        let first = Box(1)
        #expect(reference.storeIfNil(first) === first)
        #expect(reference.storeIfNil(Box(2)) === first)
        #expect(reference.load()?.n == 1)
    }
}
