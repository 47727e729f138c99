import Foundation
import Synchronization
import Testing
@testable import Chronicle

/// A model that counts the instances made of it (handles included): how
/// the tests below tell a reused handle from a new one at the same address.
final class Tally: Object {
    static let made = Atomic<Int>(0)
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0

    required init() {
        Self.made.add(1, ordering: .relaxed)
        super.init()
    }
}
extension Tally: @unchecked Sendable {}

/// A model with a stored property that is not persisted: its handles keep
/// state of their own, so an iteration never reuses them.
final class Scratchpad: Object {
    @Persisted(primaryKey: true) var id = 0
    var visits = 0
}
extension Scratchpad: @unchecked Sendable {}

/// A model class inheriting its persisted properties, with nothing of its own.
class TallyBase: Object {
    @Persisted(primaryKey: true) var id = 0
}
extension TallyBase: @unchecked Sendable {}
final class DerivedTally: TallyBase {
    @Persisted var score = 0
}
final class DerivedScratchpad: TallyBase {
    lazy var cached = "\(id)"
}
extension DerivedTally: @unchecked Sendable {}
extension DerivedScratchpad: @unchecked Sendable {}

/// A projection that counts its instances.
final class TallyCard: Projection<Tally> {
    static let made = Atomic<Int>(0)
    @Projected(\Tally.name) var label
    @Projected(\Tally.score) var points

    required init(projecting object: Tally) {
        Self.made.add(1, ordering: .relaxed)
        super.init(projecting: object)
    }
}
extension TallyCard: @unchecked Sendable {}

/// A projection with state of its own: never reused.
final class TallyNote: Projection<Tally> {
    @Projected(\Tally.name) var label
    var seen = false
}
extension TallyNote: @unchecked Sendable {}

/// An iteration points the handle it yielded last at the next object when
/// the caller let go of it (``ObjectBase/isRelocatable``): what each element
/// reads is unchanged, a handle the caller keeps — strongly, weakly or
/// unowned — is never repointed, and a class that keeps state of its own
/// gets a new handle per element.
@Suite("Managed handles: reuse by an iteration", .serialized)
struct HandleReuseTests {
    static func tallies(_ count: Int, _ name: String = #function) throws -> Store {
        let store = try scratchStore(name)
        try store.write {
            for id in 0..<count { store.create(Tally.self, value: ["id": id, "name": "t\(count - id)", "score": id % 10]) }
        }
        return store
    }

    /// Instances of `Tally` made while `body` runs.
    static func made(_ body: () throws -> Void) rethrows -> Int {
        let before = Tally.made.load(ordering: .relaxed)
        try body()
        return Tally.made.load(ordering: .relaxed) - before
    }

    @Test func theMetadataAllowsReuseOnlyForClassesThatStoreNothingElse() throws {
        #expect(try ClassMetadata.of(Tally.self).allowsHandleReuse)
        #expect(try ClassMetadata.of(DerivedTally.self).allowsHandleReuse)
        #expect(try !ClassMetadata.of(Scratchpad.self).allowsHandleReuse)
        #expect(try !ClassMetadata.of(DerivedScratchpad.self).allowsHandleReuse, "a lazy var is stored")
        #expect(try !ClassMetadata.of(Greeter.self).allowsHandleReuse)
    }

    @Test func anIterationWhoseElementsAreLetGoMakesOneHandle() throws {
        let store = try Self.tallies(300)
        var ids: [Int] = [], names: [String] = [], total = 0
        let made = Self.made {
            for tally in store.objects(Tally.self) {
                ids.append(tally.id)
                names.append(tally.name)
                total += tally.score
            }
        }
        #expect(made == 1)
        #expect(ids == Array(0..<300))
        #expect(names == (0..<300).map { "t\(300 - $0)" })
        #expect(total == (0..<300).reduce(0) { $0 + $1 % 10 })
    }

    @Test func filteredAndSortedIterationsReuseTooAndReadEachObjectsValues() throws {
        let store = try Self.tallies(300)
        let results = store.objects(Tally.self).filter(#Predicate { $0.score < 3 }).sorted(by: \.name)
        var rows: [String] = []
        let made = Self.made {
            for tally in results { rows.append("\(tally.name):\(tally.id):\(tally.score)") }
        }
        #expect(made == 1)
        let expected = (0..<300).filter { $0 % 10 < 3 }.map { (name: "t\(300 - $0)", id: $0) }
            .sorted { $0.name < $1.name }.map { "\($0.name):\($0.id):\($0.id % 10)" }
        #expect(rows == expected)
    }

    @Test func keptElementsAreDistinctHandlesOnTheirOwnObjects() throws {
        let store = try Self.tallies(100)
        var kept: [Tally] = []
        let made = Self.made {
            for (index, tally) in store.objects(Tally.self).enumerated() where index % 2 == 0 { kept.append(tally) }
        }
        #expect(kept.map(\.id) == Array(stride(from: 0, to: 100, by: 2)))
        #expect(Set(kept.map(ObjectIdentifier.init)).count == 50)
        // Every kept element had its own handle; each one let go was reused once.
        #expect(made == 51)
        let all = Array(store.objects(Tally.self))
        #expect(Set(all.map(ObjectIdentifier.init)).count == 100)
        #expect(all.map(\.id) == Array(0..<100))
    }

    @Test func aWeaklyReferencedElementIsNeverRepointed() throws {
        let store = try Self.tallies(50)
        weak var first: Tally?
        var seenThroughWeak: [Int] = []
        let made = Self.made {
            for tally in store.objects(Tally.self) {
                if tally.id == 0 { first = tally }
                if let first { seenThroughWeak.append(first.id) }
            }
        }
        #expect(seenThroughWeak.allSatisfy { $0 == 0 }, "a weak reference reads its own object or nothing")
        #expect(first == nil, "the handle was freed, not reused")
        #expect(made == 2, "the weakly referenced handle, then one reused for the rest")
    }

    @Test func anElementWithAnUnownedReferenceIsNeverRepointed() throws {
        let store = try Self.tallies(50)
        let handle = try #require(store.objects(Tally.self).first)
        #expect(handle.isRelocatable)
        try withExtendedLifetime(handle) {
            unowned let alias = handle
            #expect(!handle.isRelocatable)
            #expect(alias.id == 0)
            _ = try #require(Optional(alias))
        }
        #expect(handle.isRelocatable, "the unowned reference ended")
        let frozen = try #require(store.objects(Tally.self).freeze().first)
        #expect(!frozen.isRelocatable, "a frozen handle is bound")
        #expect(!Tally().isRelocatable, "an unmanaged object is not a handle")
    }

    @Test func handlesOfClassesWithStateOfTheirOwnStartFreshForEveryElement() throws {
        let store = try scratchStore()
        try store.write { for id in 0..<40 { store.create(Scratchpad.self, value: ["id": id]) } }
        var visitsSeen: [Int] = []
        for pad in store.objects(Scratchpad.self) {
            visitsSeen.append(pad.visits)
            pad.visits += 1
        }
        #expect(visitsSeen == Array(repeating: 0, count: 40))
    }

    @Test func writingThroughReusedHandlesInsideAWriteChangesEachObject() throws {
        let store = try Self.tallies(200)
        let made = try Self.made {
            try store.write {
                for tally in store.objects(Tally.self) { tally.score += tally.id }
            }
        }
        #expect(made == 1)
        #expect(store.objects(Tally.self).map(\.score) == (0..<200).map { $0 % 10 + $0 })
    }

    /// A commit in the middle of an iteration: the iteration goes on over
    /// the keys it started with, and each element reads the store as it is
    /// now, as a new handle would.
    @Test func elementsAfterACommitMidIterationReadTheCommittedValues() throws {
        let store = try Self.tallies(100)
        var scores: [Int] = []
        for tally in store.objects(Tally.self) {
            if tally.id == 10 {
                try store.write { store.object(ofType: Tally.self, forPrimaryKey: 20)!.score = 999 }
            }
            scores.append(tally.score)
        }
        var expected = (0..<100).map { $0 % 10 }
        expected[20] = 999
        #expect(scores == expected)
    }

    /// An iteration over a folded table walks its objects trie a leaf of
    /// 64 keys at a time (``ObjectLeafScan``): keys deleted within a leaf,
    /// whole leaves emptied, the first and last keys gone, and a table left
    /// empty all iterate as the objects are, kept elements keep reading
    /// their own objects, and let-go ones are reused.
    @Test func anIterationOfAFoldedTableWalksPastGapsAndEmptiedLeaves() throws {
        let store = try Self.tallies(1_000)
        let deleted = Set(0..<1).union(64..<192).union(stride(from: 5, to: 1_000, by: 3)).union(990..<1_000)
        try store.write {
            for id in deleted.sorted() { store.delete(store.object(ofType: Tally.self, forPrimaryKey: id)!) }
        }
        let left = (0..<1_000).filter { !deleted.contains($0) }
        var rows: [String] = []
        var kept: [Tally] = []
        let made = Self.made {
            for tally in store.objects(Tally.self) {
                rows.append("\(tally.id) \(tally.name) \(tally.score)")
                if tally.id % 97 == 0 { kept.append(tally) }
            }
        }
        #expect(rows == left.map { "\($0) t\(1_000 - $0) \($0 % 10)" })
        #expect(kept.map(\.id) == left.filter { $0 % 97 == 0 })
        #expect(kept.map(\.score) == kept.map { $0.id % 10 })
        // One handle for the let-go elements, one per kept one (and the
        // one after each kept element is made anew).
        #expect(made <= 1 + 2 * kept.count)

        try store.write {
            for id in left { store.delete(store.object(ofType: Tally.self, forPrimaryKey: id)!) }
        }
        var after = 0
        for _ in store.objects(Tally.self) { after += 1 }
        #expect(after == 0)
    }

    /// Iterating a table still in its checkpoint file reuses the handle
    /// too, moving it from block to block.
    @Test func anEncodedIterationReusesItsHandleAcrossBlocks() throws {
        let (store, deferred) = try LazyCheckpointTests.reopenedLazily(try LazyCheckpointTests.lazyConfiguration(), table: "Tally") { store in
            try store.write {
                for id in 0..<2000 { store.create(Tally.self, value: ["id": id, "name": "n\(id)", "score": id % 7]) }
            }
        }
        var rows: [String] = []
        let made = Self.made {
            for tally in store.objects(Tally.self) { rows.append("\(tally.id) \(tally.name) \(tally.score)") }
        }
        #expect(made == 1)
        #expect(rows == (0..<2000).map { "\($0) n\($0) \($0 % 7)" })
        #expect(!deferred.isBuilt)
    }

    /// Instances of `TallyCard` made while `body` runs.
    static func cardsMade(_ body: () throws -> Void) rethrows -> Int {
        let before = TallyCard.made.load(ordering: .relaxed)
        try body()
        return TallyCard.made.load(ordering: .relaxed) - before
    }

    @Test func projectionsLetGoAreReusedWithTheirHandles() throws {
        let store = try Self.tallies(300)
        #expect(ProjectionMetadata.of(TallyCard.self).allowsReuse)
        #expect(!ProjectionMetadata.of(TallyNote.self).allowsReuse)
        var rows: [String] = []
        var handles = 0
        let cards = Self.cardsMade {
            handles = Self.made {
                for card in store.objects(TallyCard.self) { rows.append("\(card.label) \(card.points)") }
            }
        }
        #expect(cards == 1 && handles == 1)
        #expect(rows == (0..<300).map { "t\(300 - $0) \($0 % 10)" })
    }

    @Test func aProjectionKeptOrWhoseBaseIsKeptIsNeverMoved() throws {
        let store = try Self.tallies(60)
        var keptCards: [TallyCard] = [], keptBases: [Tally] = []
        for card in store.objects(TallyCard.self) {
            if card.points == 0 { keptCards.append(card) }
            if card.points == 1 { keptBases.append(card.rootObject) }
        }
        #expect(keptCards.map(\.rootObject.id) == [0, 10, 20, 30, 40, 50])
        #expect(keptCards.map(\.label) == ["t60", "t50", "t40", "t30", "t20", "t10"])
        #expect(keptBases.map(\.id) == [1, 11, 21, 31, 41, 51])
        var seen: [Bool] = []
        for note in store.objects(TallyNote.self) {
            seen.append(note.seen)
            note.seen = true
        }
        #expect(seen == Array(repeating: false, count: 60), "a projection with state of its own is new for every element")
    }

    /// A weak or unowned reference to a projection, or to its base handle,
    /// keeps both where they are (the counts read in one load,
    /// ``InlineReferenceCount``): a weak reference reads its own object or
    /// nothing, and the iteration makes a new projection after each such
    /// element. (An unowned reference is never read here: its element is
    /// freed when the iteration lets go of it, as it must be.)
    @Test func aProjectionOrBaseReferencedWeaklyOrUnownedIsNeverMoved() throws {
        let store = try Self.tallies(40)
        weak var weakCard: TallyCard?
        weak var weakBase: Tally?
        var unownedHolders: [AnyObject] = []
        var readThroughWeak: [Int] = []
        let cards = Self.cardsMade {
            for card in store.objects(TallyCard.self) {
                let id = card.rootObject.id
                if id == 3 { weakCard = card }
                if id == 7 { weakBase = card.rootObject }
                if id == 11 { unownedHolders.append(UnownedHolder(card)) }
                if id == 15 { unownedHolders.append(UnownedHolder(card.rootObject)) }
                if let weakCard { readThroughWeak.append(weakCard.rootObject.id) }
                if let weakBase { readThroughWeak.append(weakBase.id) }
            }
        }
        #expect(readThroughWeak.allSatisfy { $0 == 3 || $0 == 7 }, "a weak reference reads its own object or nothing")
        #expect(weakCard == nil && weakBase == nil, "freed, not moved")
        // One to start, one after each of the four referenced elements.
        #expect(cards == 5)
        #expect(unownedHolders.count == 2)
    }

    /// Elements handed to other tasks are held there: the iteration makes
    /// new handles while they are, and every task reads its own object.
    @Test func elementsSentToTasksKeepTheirObjects() async throws {
        let store = try Self.tallies(64)
        let ids = await withTaskGroup(of: (Int, Int).self) { group in
            for tally in store.objects(Tally.self) {
                let expected = tally.id
                group.addTask {
                    await Task.yield()
                    return (expected, tally.id)
                }
            }
            var pairs: [(Int, Int)] = []
            for await pair in group { pairs.append(pair) }
            return pairs
        }
        #expect(ids.count == 64)
        #expect(ids.allSatisfy { $0.0 == $0.1 })
    }
}
