import Testing
@testable import Chronicle

// The tests' elements: integers kept, like object keys, as 32-bit
// distances from their chunk's base, so that every test here runs the
// chunks' narrow storage.
extension Int: ChunkElement {
    public static func stored(_ element: Int, base: Int) -> UInt32? {
        let (distance, overflow) = element.subtractingReportingOverflow(base)
        guard !overflow, distance >= 0, distance <= Int(UInt32.max) else { return nil }
        return UInt32(distance)
    }

    public static func element(_ stored: UInt32, base: Int) -> Int { base + Int(stored) }
}

@Suite("SortedChunks")
struct SortedChunksTests {
    /// A seeded generator so a failure replays.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 33 | state << 31
        }
    }

    @Test func emptyAndSingle() {
        var chunks = SortedChunks<Int>()
        #expect(chunks.isEmpty && chunks.elements.isEmpty)
        let removedFromEmpty = chunks.remove(3)
        #expect(!removedFromEmpty)
        chunks.insert(3)
        #expect(chunks.elements == [3] && chunks.count == 1)
        let removed = chunks.remove(3)
        #expect(removed && chunks.isEmpty && chunks.chunks.isEmpty)
        chunks._checkInvariants()
    }

    /// While the elements fit one chunk they are kept in it, with no page
    /// list and no page (an index value with one key, a single backlink);
    /// the element past a full chunk gives it pages, and the collection
    /// stays paged; emptied, it starts again from one chunk.
    @Test func elementsThatFitOneChunkHaveNoPages() throws {
        // One chunk or the page list: one word, as the page list alone
        // was (an index value and a backlink list are kept by the million).
        #expect(MemoryLayout<SortedChunks<Int>>.size == 2 * MemoryLayout<Int>.size)
        var chunks = SortedChunks<Int>()
        #expect(!chunks.isOneChunk)
        chunks.insert(10)
        #expect(chunks.isOneChunk && chunks.chunks.count == 1)
        for value in (11..<(10 + SortedChunks<Int>.maximumChunk)).reversed() { chunks.insert(value) }
        chunks._checkInvariants()
        #expect(chunks.isOneChunk && chunks.count == SortedChunks<Int>.maximumChunk)
        #expect(chunks.elements == Array(10..<(10 + SortedChunks<Int>.maximumChunk)))
        chunks.insert(500)
        chunks._checkInvariants()
        #expect(!chunks.isOneChunk && chunks.chunks.count == 2 && chunks.pages.count == 1)
        for value in 11..<(10 + SortedChunks<Int>.maximumChunk) {
            let removed = chunks.remove(value)
            #expect(removed)
        }
        #expect(!chunks.isOneChunk && chunks.elements == [10, 500])
        let removedBoth = chunks.remove(10) && chunks.remove(500)
        #expect(removedBoth && chunks.isEmpty)
        chunks.insert(contentsOf: [7])
        #expect(chunks.isOneChunk && chunks.elements == [7])
        // Built from ascending elements: one chunk when they fit one.
        let built = SortedChunks(ascending: Array(0..<SortedChunks<Int>.maximumChunk))
        #expect(built.isOneChunk && built.count == SortedChunks<Int>.maximumChunk)
        built._checkInvariants()
        let larger = SortedChunks(ascending: Array(0...SortedChunks<Int>.maximumChunk))
        #expect(!larger.isOneChunk && larger.chunks.count == 2)
        // Too far apart for one base (a 32-bit distance): pages at once.
        let apart = SortedChunks(ascending: [0, 1 << 40])
        #expect(!apart.isOneChunk && apart.chunks.count == 2)
        apart._checkInvariants()
    }

    /// A copy shares the one chunk; every edit of the other copy leaves it
    /// as it was: an insert, one below the chunk's base (which makes pages
    /// to lower it), one too far from it, a removal. A shared chunk at
    /// least half full is left to the copy, as the last chunk of pages is.
    @Test func oneChunkCopiesAreIndependent() throws {
        let original = SortedChunks(ascending: [100, 200, 300])
        var edits: [(String, (inout SortedChunks<Int>) -> Void, [Int])] = [
            ("insert", { $0.insert(150) }, [100, 150, 200, 300]),
            ("below the base", { $0.insert(5) }, [5, 100, 200, 300]),
            ("too far", { $0.insert(1 << 40) }, [100, 200, 300, 1 << 40]),
            ("remove", { _ = $0.remove(200) }, [100, 300]),
            ("remove all", { for value in [100, 200, 300] { _ = $0.remove(value) } }, []),
            ("many", { $0.insert(contentsOf: Array(301..<400)) }, [100, 200] + Array(300..<400)),
        ]
        edits.append(("past a chunk", { $0.insert(contentsOf: Array(1_000..<1_200)) }, [100, 200, 300] + Array(1_000..<1_200)))
        for (name, edit, expected) in edits {
            var copy = original
            edit(&copy)
            copy._checkInvariants()
            original._checkInvariants()
            #expect(copy.elements == expected, "\(name)")
            #expect(copy.count == expected.count, "\(name)")
            #expect(original.elements == [100, 200, 300], "\(name)")
        }
        let half = SortedChunks(ascending: Array(0..<(SortedChunks<Int>.maximumChunk / 2)))
        var grown = half
        grown.insert(1_000)
        let shared = try #require(half.chunks.first)
        #expect(!grown.isOneChunk && grown.chunks.first === shared, "the half-full chunk is kept, not copied")
        #expect(half.elements == Array(0..<(SortedChunks<Int>.maximumChunk / 2)))
    }

    /// Small collections and their copies, edited at random, against
    /// sorted arrays: the one-chunk form and its change to pages.
    @Test(arguments: [2, 9, 31])
    func smallCollectionsAndCopiesMatchSortedArrays(seed: UInt64) {
        var random = Seeded(state: seed)
        var versions: [(SortedChunks<Int>, [Int])] = [(SortedChunks(), [])]
        for _ in 0..<3_000 {
            var (chunks, model) = versions[Int.random(in: 0..<versions.count, using: &random)]
            for _ in 0..<Int.random(in: 1...20, using: &random) {
                let value = Int.random(in: 0..<400, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0, 1:
                    chunks.insert(value)
                    model.insert(value, at: model.insertionPoint(after: value))
                case 2:
                    let run = (value..<(value + Int.random(in: 1...40, using: &random))).map { $0 }
                    chunks.insert(contentsOf: run)
                    for element in run { model.insert(element, at: model.insertionPoint(after: element)) }
                default:
                    let removed = chunks.remove(value)
                    let present = model.firstIndex(of: value)
                    #expect(removed == (present != nil))
                    if let present { model.remove(at: present) }
                }
            }
            chunks._checkInvariants()
            #expect(chunks.elements == model && chunks.count == model.count)
            if model.count > 300 { (chunks, model) = (SortedChunks(), []) }
            versions.append((chunks, model))
            if versions.count > 40 { versions.removeFirst() }
        }
        for (chunks, model) in versions {
            chunks._checkInvariants()
            #expect(Array(chunks) == model)
        }
    }

    @Test(arguments: [1, 7, 42])
    func randomEditsMatchASortedArray(seed: UInt64) {
        var random = Seeded(state: seed)
        var chunks = SortedChunks<Int>()
        var model: [Int] = []
        for step in 0..<20_000 {
            let value = Int.random(in: 0..<3_000, using: &random)
            if Bool.random(using: &random) || model.isEmpty {
                chunks.insert(value)
                model.insert(value, at: model.insertionPoint(after: value))
            } else {
                let present = model.firstIndex(of: value)
                let removed = chunks.remove(value)
                #expect(removed == (present != nil))
                if let present { model.remove(at: present) }
            }
            if step % 2_000 == 0 { chunks._checkInvariants() }
        }
        chunks._checkInvariants()
        #expect(chunks.elements == model)
        #expect(Array(chunks) == model)
        #expect(chunks.count == model.count)
        #expect(chunks.chunks.count > 1, "the test must cross chunk boundaries")
    }

    /// A fold files each run's keys for a value at once (issue 31):
    /// ascending runs fill chunks a chunk at a time, anything else falls
    /// back to one insert per element. Either way, the same multiset as
    /// inserting one by one, on a copy that shares chunks with another.
    @Test(arguments: [3, 11, 29])
    func insertingARunMatchesInsertingOneByOne(seed: UInt64) {
        var random = Seeded(state: seed)
        var batched = SortedChunks<Int>()
        var single = SortedChunks<Int>()
        var next = 0
        for round in 0..<400 {
            let count = Int.random(in: 0..<300, using: &random)
            var run: [Int] = []
            for _ in 0..<count {
                // Mostly ascending new keys, sometimes an older one or a repeat.
                switch Int.random(in: 0..<10, using: &random) {
                case 0: run.append(Int.random(in: 0...max(next, 1), using: &random))
                case 1: run.append(run.last ?? next)
                default:
                    next += Int.random(in: 1..<4, using: &random)
                    run.append(next)
                }
            }
            let shared = batched
            let sharedElements = round % 50 == 0 ? shared.elements : []
            batched.insert(contentsOf: run)
            for element in run { single.insert(element) }
            batched._checkInvariants()
            #expect(batched.count == single.count)
            if round % 50 == 0 {
                #expect(batched.elements == single.elements)
                // The copy taken before is untouched: written chunks were copied.
                #expect(shared.elements == sharedElements)
            }
        }
        #expect(batched.elements == single.elements)
        #expect(batched.chunks.count > 10, "the test must cross chunk boundaries")
    }

    @Test func repeatsStayTogetherAcrossChunks() {
        var chunks = SortedChunks<Int>()
        for _ in 0..<(3 * SortedChunks<Int>.maximumChunk) { chunks.insert(5) }
        chunks.insert(4)
        chunks.insert(6)
        chunks._checkInvariants()
        #expect(chunks.elements.first == 4 && chunks.elements.last == 6)
        var removals = 0
        while chunks.remove(5) { removals += 1 }
        #expect(removals == 3 * SortedChunks<Int>.maximumChunk)
        #expect(chunks.elements == [4, 6])
        chunks._checkInvariants()
    }

    @Test func copiesAreIndependentAndShareUntouchedChunks() {
        let original = SortedChunks(sorted: 0..<10_000)
        var copy = original
        copy.insert(5_000)
        let removed = copy.remove(9_999)
        #expect(removed)
        #expect(original.elements == Array(0..<10_000))
        #expect(copy.count == 10_000)
        original._checkInvariants()
        copy._checkInvariants()
        let shared = Set(original.chunks.map(ObjectIdentifier.init))
            .intersection(copy.chunks.map(ObjectIdentifier.init))
        // Only the two chunks the copy wrote were copied.
        #expect(shared.count == original.chunks.count - 2)
    }

    /// An element not below the last one is appended: into the last chunk
    /// in place when this copy alone holds it. When another copy shares
    /// the chunk, it is copied if less than half full, and otherwise kept
    /// as it is, the element starting a new chunk after it.
    @Test func appendsWriteOnlyTheLastChunk() {
        var chunks = SortedChunks(sorted: 0..<1_000)
        let lastChunk = ObjectIdentifier(chunks.chunks[chunks.chunks.count - 1])
        let fits = chunks.chunks[chunks.chunks.count - 1].count < SortedChunks<Int>.maximumChunk
        chunks.insert(999)  // equal to the last: goes after it
        #expect(fits == (ObjectIdentifier(chunks.chunks[chunks.chunks.count - 1]) == lastChunk), "appended in place")
        for (size, keptWhole) in [(1_000, true), (7 * SortedChunks<Int>.maximumChunk + 10, false)] {
            let original = SortedChunks(sorted: 0..<size)
            #expect((original.chunks[original.chunks.count - 1].count >= SortedChunks<Int>.maximumChunk / 2) == keptWhole)
            var copy = original
            copy.insert(size)
            copy.insert(size + 1)
            #expect(original.elements == Array(0..<size))
            #expect(copy.elements == Array(0..<(size + 2)))
            original._checkInvariants()
            copy._checkInvariants()
            let shared = Set(original.chunks.map(ObjectIdentifier.init)).intersection(copy.chunks.map(ObjectIdentifier.init))
            if keptWhole {
                #expect(shared.count == original.chunks.count, "the half-full last chunk is shared, not copied")
                #expect(copy.chunks.count == original.chunks.count + 1 && copy.chunks[copy.chunks.count - 1].count == 2)
            } else {
                #expect(shared.count == original.chunks.count - 1, "only the last chunk was copied")
                #expect(copy.chunks.count == original.chunks.count)
            }
        }
    }

    /// The same for pages: a new chunk after a shared page at least half
    /// full starts a page of its own, rather than copying that page.
    @Test func aNewChunkAfterAHalfFullSharedPageStartsAPage() {
        let chunk = SortedChunks<Int>.maximumChunk, page = SortedChunks<Int>.maximumPage
        for (chunksOnLastPage, keptWhole) in [(page / 2 + 1, true), (page / 2 - 1, false)] {
            let size = (2 * page + chunksOnLastPage) * chunk  // every chunk full
            let original = SortedChunks(sorted: 0..<size)
            var copy = original
            copy.insert(size)
            #expect(original.elements == Array(0..<size) && copy.elements == Array(0...size))
            copy._checkInvariants()
            let shared = Set(original.pages.map(ObjectIdentifier.init)).intersection(copy.pages.map(ObjectIdentifier.init))
            #expect(shared.count == (keptWhole ? original.pages.count : original.pages.count - 1))
            #expect(copy.pages.count == original.pages.count + (keptWhole ? 1 : 0))
        }
    }

    /// A fold takes an in-memory checkpoint (a copy it keeps) between
    /// commits that each append a run of keys for every indexed value.
    /// Every copy keeps its elements; the newest version's chunks are at
    /// least half full; and a copy holds no chunk of its own but its last,
    /// when that was less than half full (the copy the next run made).
    @Test(arguments: [40, 100, 300])
    func copiesTakenBetweenRunsShareAllButSmallLastChunks(run: Int) {
        var live = SortedChunks<Int>()
        var kept: [SortedChunks<Int>] = []
        for start in stride(from: 0, to: 60 * run, by: run) {
            live.insert(contentsOf: Array(start..<(start + run)))
            kept.append(live)
        }
        live._checkInvariants()
        #expect(live.elements == Array(0..<(60 * run)))
        #expect(live.chunks.dropLast().allSatisfy { $0.count >= SortedChunks<Int>.maximumChunk / 2 })
        let liveChunks = Set(live.chunks.map(ObjectIdentifier.init))
        for (index, copy) in kept.enumerated() {
            copy._checkInvariants()
            #expect(copy.elements == Array(0..<((index + 1) * run)))
            let own = copy.chunks.filter { !liveChunks.contains(ObjectIdentifier($0)) }
            #expect(own.count <= 1)
            if let own = own.first {
                #expect(own === copy.chunks[copy.chunks.count - 1] && own.count < SortedChunks<Int>.maximumChunk / 2)
            }
        }
    }

    /// The chunks sit in pages: an edit on a copy copies the page list,
    /// one page and one chunk, not a reference to every chunk (issue 31:
    /// the first edit after each in-memory checkpoint did that, for every
    /// indexed value a commit touched).
    @Test func anEditOnACopyCopiesOnePage() {
        let original = SortedChunks(sorted: 0..<100_000)
        #expect(original.pages.count > 10, "the test must cross page boundaries")
        for edit in [50_000, 200_000] {  // in the middle, then past the end
            var copy = original
            copy.insert(edit)
            #expect(original.elements == Array(0..<100_000))
            #expect(copy.count == 100_001 && copy.elements.contains(edit))
            copy._checkInvariants()
            let sharedPages = Set(original.pages.map(ObjectIdentifier.init)).intersection(copy.pages.map(ObjectIdentifier.init))
            #expect(sharedPages.count == original.pages.count - 1, "only the written page was copied")
            let sharedChunks = Set(original.chunks.map(ObjectIdentifier.init)).intersection(copy.chunks.map(ObjectIdentifier.init))
            #expect(sharedChunks.count == original.chunks.count - 1, "and the written chunk")
        }
    }

    /// Random inserts split chunks and pages anywhere; removing a range
    /// empties chunks and pages; a copy taken halfway keeps its elements.
    @Test(arguments: [5, 13])
    func pagesSplitAndEmptyAnywhere(seed: UInt64) {
        var random = Seeded(state: seed)
        var chunks = SortedChunks<Int>()
        var model: [Int] = []
        for _ in 0..<40_000 {
            let value = Int.random(in: 0..<1_000_000, using: &random)
            chunks.insert(value)
            model.insert(value, at: model.insertionPoint(after: value))
        }
        chunks._checkInvariants()
        #expect(chunks.pages.count > 3, "the test must split pages")
        #expect(chunks.elements == model)
        let halfway = chunks
        for value in model where value < 600_000 {
            let removed = chunks.remove(value)
            #expect(removed)
        }
        model.removeAll { $0 < 600_000 }
        chunks._checkInvariants()
        halfway._checkInvariants()
        #expect(chunks.elements == model && Array(chunks) == model)
        #expect(halfway.count == 40_000 && halfway.pages.count > chunks.pages.count)
        let removedAgain = chunks.remove(model[0] - 1)
        #expect(!removedAgain || model.contains(model[0] - 1))
    }

    /// A fold files a hundred new keys for each value per commit: chunks
    /// filled that way, or one key at a time, or split by inserts, keep no
    /// more room than a full chunk's (the array's own growth doubled a
    /// chunk of 100 to room for 200 for its last 28 keys).
    @Test func chunksKeepNoMoreRoomThanAFullChunk() {
        var runs = SortedChunks<Int>()
        for run in 0..<40 { runs.insert(contentsOf: Array(run * 100..<(run + 1) * 100)) }
        runs._checkInvariants()
        let full = runs.chunks.filter { $0.count == SortedChunks<Int>.maximumChunk }
        #expect(full.count >= 30)
        let room = full.map { $0.capacity - $0.count }
        // The allocator may hand out up to 48 bytes more than asked for.
        #expect(room.allSatisfy { $0 <= 48 / MemoryLayout<Int.Stored>.stride }, "room left in full chunks: \(Set(room).sorted())")

        var single = SortedChunks<Int>()
        for key in 0..<1_000 { single.insert(key) }
        var random = Seeded(state: 9)
        for _ in 0..<2_000 { single.insert(Int.random(in: 0..<1_000, using: &random)) }
        single._checkInvariants()
        let total = single.chunks.reduce(0) { $0 + $1.capacity }
        #expect(total <= single.count + single.chunks.count * SortedChunks<Int>.maximumChunk / 2)
    }

    @Test func ascendingInsertsFillChunks() {
        var chunks = SortedChunks<Int>()
        for value in 0..<(10 * SortedChunks<Int>.maximumChunk) { chunks.insert(value) }
        chunks._checkInvariants()
        #expect(chunks.chunks.count == 10)
        #expect(chunks.elements == Array(0..<(10 * SortedChunks<Int>.maximumChunk)))
    }

    @Test func equalityIgnoresChunking() {
        var built = SortedChunks<Int>()
        for value in (0..<1_000).reversed() { built.insert(value) }
        #expect(built == SortedChunks(sorted: 0..<1_000))
        #expect(built != SortedChunks(sorted: 1..<1_000))
    }

    /// A chunk keeps each key as its 32-bit distance from the chunk's base:
    /// keys farther apart than that never share a chunk. Edits over keys in
    /// clusters 2^33 apart (and at both ends of `Int64`) match a sorted
    /// array, and every key reads back as it went in.
    @Test(arguments: [5, 17, 23])
    func keysTooFarApartForOneChunkStartTheirOwn(seed: UInt64) {
        var random = Seeded(state: seed)
        var chunks = SortedChunks<ObjectKey>()
        var model: [ObjectKey] = []
        for step in 0..<12_000 {
            let key: ObjectKey
            switch Int.random(in: 0..<100, using: &random) {
            case 0: key = ObjectKey(.max - Int64.random(in: 0..<3, using: &random))
            case 1: key = ObjectKey(.min + Int64.random(in: 0..<3, using: &random))
            default: key = ObjectKey(Int64.random(in: -2..<6, using: &random) << 33 + Int64.random(in: 0..<500, using: &random))
            }
            if Int.random(in: 0..<3, using: &random) > 0 || model.isEmpty {
                chunks.insert(key)
                model.insert(key, at: model.insertionPoint(after: key))
            } else {
                let present = model.firstIndex(of: key)
                let removed = chunks.remove(key)
                #expect(removed == (present != nil))
                if let present { model.remove(at: present) }
            }
            if step % 1_000 == 0 { chunks._checkInvariants() }
        }
        chunks._checkInvariants()
        #expect(Array(chunks) == model)
        #expect(chunks.count == model.count)
        let spans = chunks.chunks.map { $0[$0.count - 1].rawValue.subtractingReportingOverflow($0[0].rawValue) }
        #expect(spans.allSatisfy { !$0.overflow && $0.partialValue <= Int64(UInt32.max) }, "a chunk spans more than 32 bits")
        var batched = SortedChunks<ObjectKey>()
        batched.insert(contentsOf: model)
        batched._checkInvariants()
        #expect(batched == chunks)
        let bulk = SortedChunks(ascending: model)
        bulk._checkInvariants()
        #expect(bulk == chunks && bulk.chunks.map(\.count) == SortedChunks(sorted: model).chunks.map(\.count))
    }

    /// A key inserted below its chunk's base becomes the base when the
    /// chunk's last key stays within 32 bits of it: keys inserted in
    /// descending order fill chunks rather than starting one each.
    @Test func aKeyBelowTheBaseLowersIt() {
        var chunks = SortedChunks<ObjectKey>()
        for key in (1...1_000).reversed() { chunks.insert(ObjectKey(Int64(key))) }
        chunks._checkInvariants()
        #expect(Array(chunks) == (1...1_000).map { ObjectKey(Int64($0)) })
        #expect(chunks.chunks.count <= 2 * 1_000 / SortedChunks<ObjectKey>.maximumChunk + 1)
        // Too far below: a chunk of its own before the others.
        chunks.insert(ObjectKey(1 - (1 << 33)))
        chunks._checkInvariants()
        #expect(chunks.chunks.first?.count == 1 && chunks.count == 1_001)
    }

    /// An index's keys take 4 bytes each in its chunks, not 8.
    @Test func objectKeysTakeFourBytesEach() {
        let keys = (1...10_000).map { ObjectKey(Int64($0) * 3) }
        for built in [SortedChunks(ascending: keys), SortedChunks(sorted: keys)] {
            let bytes = built.chunks.reduce(0) { $0 + $1.capacity * MemoryLayout<ObjectKey.Stored>.stride }
            #expect(bytes <= 4 * keys.count + 48 * built.chunks.count)
        }
    }
}
