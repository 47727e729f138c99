import Foundation
import Synchronization
import Testing
@testable import Chronicle

/// A model whose table is read lazily from the checkpoint file: values of
/// every common kind, one optional, one list.
final class Reading: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label = ""
    @Persisted var note: String?
    @Persisted var ratio = 0.0
    @Persisted var taken = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var samples = List<Int>()
}
extension Reading: @unchecked Sendable {}

/// A model whose integer follows strings of every length class: the
/// stepping over raw bytes before a value takes one-byte lengths only.
final class Annotated: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var note = ""
    @Persisted var remark: String?
    @Persisted var count = 0
}
extension Annotated: @unchecked Sendable {}

/// A model whose integers come first, with bytes after them in the block:
/// a plain integer followed by eight bytes of its object is read from one
/// load when it is at most three bytes long.
final class Measured: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var amount = 0
    @Persisted var tail = ""
}
extension Measured: @unchecked Sendable {}

/// Iterating every object of a table still in its checkpoint file
/// (``EncodedScan``): the handles read their values from the blocks
/// (``EncodedBlock``) one value at a time, the table is not built, and
/// every value read is the fold's — across commits, damage and a spent
/// read budget.
@Suite("Replay: iterating a table left in its checkpoint file")
struct EncodedIterationTests {
    typealias Lazy = LazyCheckpointTests

    /// Every step of a scan of `table` until it ends or hands over.
    static func steps(_ table: any DeferredTable) -> (keys: [Int64], blocks: [EncodedBlock], handover: ObjectKey?) {
        let (keys, blocks, _, handover) = stepsWithPlaces(table)
        return (keys, blocks, handover)
    }

    /// ``steps(_:)`` with where each step said its object's values are.
    static func stepsWithPlaces(_ table: any DeferredTable)
        -> (keys: [Int64], blocks: [EncodedBlock], places: [EncodedBlock.Place], handover: ObjectKey?) {
        var scan = EncodedScan(table)
        var keys: [Int64] = [], blocks: [EncodedBlock] = [], places: [EncodedBlock.Place] = []
        while true {
            switch scan.next() {
            case .object(let key, let block, let place):
                keys.append(key.rawValue)
                blocks.append(block.takeUnretainedValue())
                places.append(place)
            case .end:
                return (keys, blocks, places, nil)
            case .unavailable(let resume):
                return (keys, blocks, places, resume)
            }
        }
    }

    @Test(arguments: [20, 256, 1000])
    func aScanYieldsEveryObjectInKeyOrderWithTheFoldsValues(players: Int) throws {
        let fixture = try Lazy.fixture(players: players, name: "encoded-scan-\(players)")
        let lazy = try Lazy.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        let (keys, blocks, handover) = Self.steps(table)
        #expect(handover == nil)
        let folded = fixture.folded.objects(table: 0)
        #expect(keys == folded.map(\.key.rawValue), "object 5 was deleted: a gap the look-up searches past")
        for ((key, record), block) in zip(folded, blocks) {
            for property in record.values.indices {
                #expect(block.value(forKey: key.rawValue, property: property) == record.values[property], "key \(key), property \(property)")
                // As where the file would end right after the object: no word
                // load past its bytes (a short string copied, an integer byte
                // by byte).
                #expect(block.value(forKey: key.rawValue, property: property, loadingPastTheObject: false) == record.values[property],
                        "key \(key), property \(property), loading nothing past the object")
            }
        }
        #expect(blocks.first?.value(forKey: 5, property: 0) == nil, "a deleted object is in no block")
        #expect(!table.isBuilt)
    }

    /// The place a scan hands with each object (where a handle reads it
    /// from, found once) is the block's place for that key, and reading
    /// there gives the fold's values; reading it property after property
    /// with one cursor, as a handle does, too.
    @Test(arguments: [20, 1000])
    func eachStepsPlaceReadsThatObjectsValues(players: Int) throws {
        let fixture = try Lazy.fixture(players: players, name: "encoded-places-\(players)")
        let lazy = try Lazy.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        let (keys, blocks, places, handover) = Self.stepsWithPlaces(table)
        #expect(handover == nil)
        let folded = fixture.folded.objects(table: 0)
        #expect(keys == folded.map(\.key.rawValue))
        for (((key, record), block), place) in zip(zip(folded, blocks), places) {
            let found = try #require(block.place(forKey: key.rawValue))
            #expect(found.start == place.start && found.count == place.count && found.readable == place.readable, "key \(key)")
            var cursor = CheckpointTable.EncodedCursor.start
            for property in record.values.indices {
                var alone = CheckpointTable.EncodedCursor.start
                #expect(block.read(at: place, property: property, cursor: &alone).value == record.values[property],
                        "key \(key), property \(property)")
                #expect(block.read(at: place, property: property, cursor: &cursor).value == record.values[property],
                        "key \(key), property \(property), after the ones before")
            }
        }
        #expect(!table.isBuilt)
    }

    @Test func aDamagedBlockHandsTheScanOverWhereItStarts() throws {
        let fixture = try Lazy.fixture(players: 1000)
        let (damaged, damagedBlock) = try Lazy.damagingBlock(2, of: fixture)
        let lazy = try Lazy.lazy(damaged, fixture.journal)
        let (keys, _, handover) = Self.steps(try #require(Lazy.deferred(lazy, 0)))
        #expect(handover == ObjectKey(damagedBlock.firstKey))
        #expect(keys == fixture.folded.objects(table: 0).map(\.key.rawValue).filter { $0 < damagedBlock.firstKey })
    }

    /// A block whose entry says a first key one off its first object's,
    /// every checksum recomputed: the directory still adds up, and only
    /// the walk over the block's objects can tell (one below: the first
    /// object's key is above the entry's; one above: below it). The scan
    /// hands over where the block starts, and the table built instead is
    /// the fold's.
    @Test(arguments: [Int64(-1), 1])
    func aBlockWhoseFirstObjectIsNotItsEntrysFirstKeyHandsTheScanOver(delta: Int64) throws {
        let fixture = try Lazy.fixture(players: 1000)
        let block = try Lazy.blocks(of: fixture.checkpoint)[2]
        var changed = fixture.checkpoint
        let at = try CheckpointGroupTests.entryField(16, ofBlock: 2, in: changed)
        let firstKey = changed[at..<(at + 8)].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        #expect(firstKey == block.firstKey)
        for index in 0..<8 { changed[at + index] = UInt8(truncatingIfNeeded: (firstKey &+ delta) >> (8 * Int64(index))) }
        changed = CheckpointLayout.resealed(changed)
        let lazy = try Lazy.lazy(changed, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        let (keys, _, handover) = Self.steps(table)
        #expect(handover == ObjectKey(block.firstKey))
        #expect(keys == fixture.folded.objects(table: 0).map(\.key.rawValue).filter { $0 < block.firstKey })
        #expect(lazy.isContentEqual(fixture.folded))
    }

    /// Checksums recomputed over a changed tag: the block's shape holds,
    /// but the value, and any read that steps over it, is refused.
    @Test func aValueThatDoesNotFitItsPropertyIsNotReturned() throws {
        let fixture = try Lazy.fixture(players: 300)
        var changed = fixture.checkpoint
        // The first object: key 1, primary key 1, length, then its id's tag.
        let tag = try Lazy.blocks(of: fixture.checkpoint)[0].offset + 3
        try #require(changed[tag] == CheckpointFile.intTag)
        changed[tag] = CheckpointFile.stringTag
        let lazy = try Lazy.lazy(CheckpointLayout.resealed(changed), fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        guard case .objects(let block) = table.encodedBlock(from: 0) else {
            Issue.record("the block's shape is intact")
            return
        }
        for property in 0..<4 { #expect(block.value(forKey: 1, property: property) == nil, "property \(property)") }
        #expect(block.value(forKey: 2, property: 1) == fixture.folded.object(table: 0, key: ObjectKey(2))?.values[1])
        #expect(!table.isBuilt)
    }

    @Test func aScanOfABuiltTableHandsOverAtOnce() throws {
        let fixture = try Lazy.fixture(players: 300)
        let lazy = try Lazy.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        _ = table.built()
        let (keys, _, handover) = Self.steps(table)
        #expect(keys.isEmpty && handover == ObjectKey(0))
    }

    // MARK: Through a store

    /// A store of `count` readings, checkpointed, closed; every table of
    /// any size is read lazily when it opens.
    static func readings(_ count: Int, _ name: String = #function) throws -> Store.Configuration {
        let configuration = try Lazy.lazyConfiguration(name)
        let store = try Store(configuration: configuration)
        try store.write {
            for id in 0..<count {
                let reading = Reading()
                reading.id = id * 3
                reading.label = id % 7 == 0 ? "ünïcode \(id)" : "r\(id)"
                reading.note = id % 2 == 0 ? nil : "note \(id)"
                reading.ratio = Double(id) / 8
                reading.taken = Date(timeIntervalSinceReferenceDate: Double(id * 60))
                reading.samples.append(contentsOf: [id, -id])
                store.add(reading)
            }
        }
        try store.writeCheckpoint()
        try store.close()
        return configuration
    }

    struct Row: Equatable {
        var id: Int, label: String, note: String?, ratio: Double, taken: Date, samples: [Int]
        /// The reading's values; its list's only if `samples` (a list
        /// reads its object's whole record by key, spending the read budget).
        init(_ reading: Reading, samples withSamples: Bool = true) {
            (id, label, note, ratio, taken) = (reading.id, reading.label, reading.note, reading.ratio, reading.taken)
            samples = withSamples ? Array(reading.samples) : []
        }

        var withoutSamples: Row {
            var row = self
            row.samples = []
            return row
        }
    }

    /// The rows of a store opened without its checkpoint file: the fold's.
    static func foldedRows(_ configuration: Store.Configuration) throws -> [Row] {
        var folding = configuration
        folding.checkpoints.usesFile = false
        let store = try Store(configuration: folding)
        defer { try? store.close() }
        return store.objects(Reading.self).map { Row($0) }
    }

    static func readingsTable(_ store: Store) throws -> CheckpointTable {
        let state = store.committedState()
        let index = try #require(state.tableIndex(named: "Reading"))
        return try #require(Lazy.deferred(state, index))
    }

    @Test func iteratingAStoreOpenedLazilyReadsTheFoldsValuesWithoutBuilding() throws {
        let configuration = try Self.readings(700)
        let expected = try Self.foldedRows(configuration)
        let store = try Store(configuration: configuration)
        #expect(store.checkpoints.fileStatus == .loaded(version: store.version))
        let table = try Self.readingsTable(store)
        #expect(store.objects(Reading.self).map { Row($0, samples: false) } == expected.map(\.withoutSamples))
        // Handles kept past the iteration read the same values later.
        let kept = Array(store.objects(Reading.self))
        #expect(!table.isBuilt)
        #expect(kept.map { Row($0) } == expected)
    }

    @Test func handlesFromAnEncodedIterationReadLaterCommits() throws {
        let store = try Store(configuration: Self.readings(300))
        let kept = Array(store.objects(Reading.self))
        try store.write {
            kept[10].label = "changed"
            store.delete(kept[20])
        }
        #expect(kept[10].label == "changed")
        #expect(kept[11].label == "r11")
        #expect(kept[20].isInvalidated)
        #expect(store.objects(Reading.self).count == 299)
        #expect(Array(store.objects(Reading.self)).map(\.id) == (0..<300).filter { $0 != 20 }.map { $0 * 3 })
    }

    /// Damage found in the middle of an iteration: the table is rebuilt
    /// from the journal and the iteration goes on from there, no object
    /// skipped or repeated.
    @Test func anIterationThatMeetsADamagedBlockGoesOnFromTheRebuiltTable() throws {
        let configuration = try Self.readings(1000)
        let expected = try Self.foldedRows(configuration)
        let file = CheckpointFile.url(for: try #require(configuration.fileURL))
        var bytes = [UInt8](try Data(contentsOf: file))
        let layout = try bytes.withUnsafeBytes { try CheckpointLayout(parsing: $0) }
        let table = try #require(layout.tables.firstIndex { $0.schema.name == "Reading" })
        let block = try Lazy.blocks(of: bytes, table: table)[2]
        bytes[block.offset + block.length / 2] ^= 0x20
        try Data(bytes).write(to: file)
        let store = try Store(configuration: configuration)
        let deferred = try Self.readingsTable(store)
        #expect(store.objects(Reading.self).map { Row($0) } == expected)
        #expect(deferred.isBuilt)
    }

    /// An iteration spends the read budget like any lazy read: the third
    /// full one finds it spent and builds the table.
    @Test func theThirdFullIterationBuildsTheTable() throws {
        let configuration = try Self.readings(500)
        let expected = try Self.foldedRows(configuration)
        let store = try Store(configuration: configuration)
        let table = try Self.readingsTable(store)
        for _ in 0..<2 { #expect(store.objects(Reading.self).map(\.id) == expected.map(\.id)) }
        #expect(!table.isBuilt)
        #expect(store.objects(Reading.self).map { Row($0) } == expected)
        #expect(table.isBuilt)
    }

    /// Values after strings of one-byte and longer lengths, and after a
    /// `nil`: the raw stepping stops where its lengths end, the checked
    /// reader goes on, and each value read is the one written.
    /// Integers of every varint length, both signs and the extremes.
    static func count(_ id: Int) -> Int {
        switch id % 5 {
        case 0: id == 0 ? .min : id * 1_000_003
        case 1: .max
        case 2: -id
        case 3: -(1 << (id % 63))
        default: 1 << (id % 63)
        }
    }

    @Test func valuesAfterLongStringsAndNilsReadAsWritten() throws {
        let lengths = [0, 1, 126, 127, 128, 129, 300, 20_000]
        var expected: [String] = []
        let (store, table) = try Lazy.reopenedLazily(try Lazy.lazyConfiguration(), table: "Annotated") { store in
            try store.write {
                for id in 0..<200 {
                    let note = String(repeating: "n", count: lengths[id % lengths.count])
                    let remark: String? = id % 3 == 0 ? nil : String(repeating: "é", count: lengths[(id / 3) % lengths.count])
                    let annotated = Annotated()
                    (annotated.id, annotated.note, annotated.remark, annotated.count) = (id, note, remark, Self.count(id))
                    store.add(annotated)
                    expected.append("\(id) \(note.count) \(remark?.count ?? -1) \(Self.count(id))")
                }
            }
        }
        #expect(store.objects(Annotated.self).map { "\($0.id) \($0.note.count) \($0.remark?.count ?? -1) \($0.count)" } == expected)
        #expect(store.objects(Annotated.self).map(\.count) == (0..<200).map(Self.count))
        #expect(!table.isBuilt)
    }

    /// Integers of every varint length, each side of every length's
    /// bounds, read from a block where bytes follow them (the one-load
    /// path up to three bytes) and where none do, read as written.
    @Test func integersOfEveryLengthReadAsWritten() throws {
        var amounts: [Int] = [0, .min, .max]
        for shift in 0..<63 {
            let power = 1 << shift
            amounts += [power, power - 1, -power, -power + 1]
        }
        var expected: [String] = []
        let (store, table) = try Lazy.reopenedLazily(try Lazy.lazyConfiguration(), table: "Measured") { store in
            try store.write {
                for (index, amount) in amounts.enumerated() {
                    let measured = Measured()
                    // Identifiers of one to four bytes too, then the tail
                    // after them: none for every third object.
                    (measured.id, measured.amount, measured.tail) = (index * 4_099, amount, index % 3 == 0 ? "" : "eleven char")
                    store.add(measured)
                    expected.append("\(index * 4_099) \(amount) \(measured.tail)")
                }
            }
        }
        #expect(store.objects(Measured.self).map { "\($0.id) \($0.amount) \($0.tail)" } == expected)
        #expect(!table.isBuilt)
    }

    /// Primary keys of every varint length, each side of every length's
    /// bounds: a block's objects are found by stepping over each one's key,
    /// primary key and length (three bytes at most from one load, longer
    /// ones through the reader), and every object is found, in key order,
    /// with its values.
    @Test func primaryKeysOfEveryLengthIterateAsWritten() throws {
        var identifiers: Set<Int> = [0, .min, .max]
        for shift in 0..<63 {
            let power = 1 << shift
            identifiers.formUnion([power, power - 1, -power, -power + 1])
        }
        var expected: [String] = []
        let (store, table) = try Lazy.reopenedLazily(try Lazy.lazyConfiguration(), table: "Measured") { store in
            try store.write {
                for (index, id) in identifiers.sorted().enumerated() {
                    let measured = Measured()
                    (measured.id, measured.amount, measured.tail) = (id, index, index % 2 == 0 ? "even" : "")
                    store.add(measured)
                    expected.append("\(id) \(index) \(measured.tail)")
                }
            }
        }
        // The scan itself reads every block to its end, handing nothing over.
        let (keys, _, handover) = Self.steps(table)
        #expect(handover == nil)
        #expect(keys.count == identifiers.count)
        #expect(store.objects(Measured.self).map { "\($0.id) \($0.amount) \($0.tail)" } == expected)
        #expect(!table.isBuilt)
    }

    /// Strings read straight from a block's bytes (at most 15 ASCII bytes)
    /// and the checked way (longer, or not ASCII) read as written, and the
    /// values after them too.
    @Test func shortStringsReadStraightFromTheBlockReadAsWritten() throws {
        let notes = (0...17).map { String("abcdefghijklmnopqrstuvwxyz".prefix($0)) }
            + ["é", "éé", "naïve", "\u{7F}", "tab\there", "fifteen-letters", "sixteen-letters!"]
        var expected: [String] = []
        let (store, table) = try Lazy.reopenedLazily(try Lazy.lazyConfiguration(), table: "Annotated") { store in
            try store.write {
                for id in 0..<300 {
                    let annotated = Annotated()
                    let remark: String? = id % 4 == 0 ? nil : notes[(id / 4) % notes.count]
                    (annotated.id, annotated.note, annotated.remark, annotated.count) = (id, notes[id % notes.count], remark, Self.count(id))
                    store.add(annotated)
                    expected.append("\(id)|\(annotated.note)|\(remark ?? "nil")|\(Self.count(id))")
                }
            }
        }
        #expect(store.objects(Annotated.self).map { "\($0.id)|\($0.note)|\($0.remark ?? "nil")|\($0.count)" } == expected)
        #expect(!table.isBuilt)
    }

    /// A handle remembers where its reads of the object's bytes got to
    /// (``CheckpointTable/EncodedCursor``): reading the next property
    /// starts there. Reads in any order, again, after strings the cursor
    /// cannot step over (long, not ASCII, `nil`), and from several threads
    /// at once on the same handles, give the values written.
    @Test func propertiesReadInAnyOrderOnAnyThreadReadAsWritten() throws {
        let notes = ["", "a", "fifteen-letters", "sixteen-letters!", "é", String(repeating: "long ", count: 30)]
        var expected: [String] = []
        @Sendable func row(_ id: Int, _ note: String, _ remark: String?, _ count: Int) -> String {
            "\(id)|\(note)|\(remark ?? "nil")|\(count)"
        }
        let (store, table) = try Lazy.reopenedLazily(try Lazy.lazyConfiguration(), table: "Annotated") { store in
            try store.write {
                for id in 0..<400 {
                    let annotated = Annotated()
                    let remark: String? = id % 3 == 0 ? nil : notes[(id / 3) % notes.count]
                    (annotated.id, annotated.note, annotated.remark, annotated.count) = (id, notes[id % notes.count], remark, Self.count(id))
                    store.add(annotated)
                    expected.append(row(id, annotated.note, remark, Self.count(id)))
                }
            }
        }
        // Backwards, then forwards, then skipping about, on each handle as
        // the iteration makes it.
        var read: [String] = []
        for annotated in store.objects(Annotated.self) {
            let (count, remark, note, id) = (annotated.count, annotated.remark, annotated.note, annotated.id)
            #expect(row(annotated.id, annotated.note, annotated.remark, annotated.count) == row(id, note, remark, count))
            let (again, noteAgain, idAgain) = (annotated.count, annotated.note, annotated.id)
            #expect((again, noteAgain, idAgain) == (count, note, id))
            read.append(row(id, note, remark, count))
        }
        #expect(read == expected)
        // Handles kept past the iteration, read by four threads at once,
        // each in its own order.
        let kept = Array(store.objects(Annotated.self))
        let results = Mutex([[String]](repeating: [], count: 4))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var rows: [String] = []
            for annotated in kept {
                switch thread {
                case 0: rows.append(row(annotated.id, annotated.note, annotated.remark, annotated.count))
                case 1:
                    let (count, remark, note, id) = (annotated.count, annotated.remark, annotated.note, annotated.id)
                    rows.append(row(id, note, remark, count))
                case 2:
                    let (note, count, id, remark) = (annotated.note, annotated.count, annotated.id, annotated.remark)
                    rows.append(row(id, note, remark, count))
                default:
                    let (remark, id, count, note) = (annotated.remark, annotated.id, annotated.count, annotated.note)
                    rows.append(row(id, note, remark, count))
                }
            }
            results.withLock { $0[thread] = rows }
        }
        for rows in results.withLock({ $0 }) { #expect(rows == expected) }
        #expect(!table.isBuilt)
    }

    /// Frozen and filtered iterations take the ordinary path, with the same answers.
    @Test func frozenAndFilteredIterationsAnswerAsBefore() throws {
        let configuration = try Self.readings(400)
        let expected = try Self.foldedRows(configuration)
        let store = try Store(configuration: configuration)
        #expect(store.objects(Reading.self).freeze().map { Row($0) } == expected)
        #expect(store.objects(Reading.self).filter(#Predicate { $0.ratio >= 49 }).map(\.id) == expected.filter { $0.ratio >= 49 }.map(\.id))
        #expect(store.objects(Reading.self).sorted(by: \.ratio, ascending: false).map(\.id) == expected.map(\.id).reversed())
    }
}
