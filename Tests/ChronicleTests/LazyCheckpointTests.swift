import Foundation
import Testing
@testable import Chronicle

/// A checkpoint file's tables left in the mapped file at open
/// (``CheckpointTable``): reads by key and primary key answer from the
/// blocks without building the table, anything else builds it once, and
/// every answer is the fold's — even when a block turns out damaged after
/// the open.
@Suite("Replay: checkpoint tables read lazily")
struct LazyCheckpointTests {
    static let player = TypeSchema(name: "LzPlayer", properties: [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "team", type: .string, isIndexed: true),
        PropertySchema(name: "scores", type: .int, collection: .list),
    ])
    static let owner = TypeSchema(name: "LzOwner", properties: [
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "pet", type: .object, objectType: "LzPet"),
    ])
    static let pet = TypeSchema(name: "LzPet", properties: [PropertySchema(name: "name", type: .string)])
    static let coded = TypeSchema(name: "LzCoded", properties: [
        PropertySchema(name: "code", type: .string, isPrimaryKey: true),
        PropertySchema(name: "n", type: .int),
    ])

    /// Players with ids `3 × index + 1` (ascending with their keys), owners
    /// linking to pets, and objects with string primary keys; then a commit
    /// that deletes one player and renames another.
    static func commits(players: Int) -> [Commit] {
        var events: [Event] = []
        for index in 0..<players {
            events.append(.create(table: 0, key: ObjectKey(Int64(index + 1)), values: [
                .int(Int64(index * 3 + 1)), .string(index % 5 == 0 ? "nämë \(index)" : "p\(index)"),
                .string("team-\(index % 7)"), .list([.int(Int64(index)), .int(Int64(index * 2))]),
            ]))
        }
        for index in 0..<3 {
            events.append(.create(table: 2, key: ObjectKey(Int64(index + 1)), values: [.string("pet \(index)")]))
            events.append(.create(table: 1, key: ObjectKey(Int64(index + 1)), values: [.string("owner \(index)"), .link(ObjectKey(Int64(index + 1)))]))
        }
        for index in 0..<50 {
            events.append(.create(table: 3, key: ObjectKey(Int64(index + 1)), values: [.string("code-\(49 - index)"), .int(Int64(index))]))
        }
        return [
            Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1),
                   events: [.defineType(player), .defineType(owner), .defineType(pet), .defineType(coded)]),
            Commit(version: 2, timestamp: Date(timeIntervalSinceReferenceDate: 2), events: events),
            Commit(version: 3, timestamp: Date(timeIntervalSinceReferenceDate: 3), events: [
                .delete(table: 0, key: ObjectKey(5)),
                .set(table: 0, key: ObjectKey(10), property: 1, value: .string("renamed")),
            ]),
        ]
    }

    struct Fixture {
        var journal: Journal
        var folded: StoreState
        var checkpoint: [UInt8]
    }

    static func fixture(players: Int, name: String = #function) throws -> Fixture {
        let commits = Self.commits(players: players)
        let journal = try Journal(contentsOf: ReplayFixtures.journal(commits, name: name))
        let folded = try ReplayFixtures.prefixStates(commits).last!
        return Fixture(journal: journal, folded: folded,
                       checkpoint: try CheckpointFile.encode(folded, journal: journal))
    }

    static func lazy(_ bytes: [UInt8], _ journal: Journal) throws -> StoreState {
        try CheckpointFile.decode(MappedFile(copying: bytes), journal: journal, deferringFrom: 1).get()
    }

    /// The fixture's checkpoint with one bit flipped in the middle of
    /// block `block` of the players' table, and that block.
    static func damagingBlock(_ block: Int, of fixture: Fixture) throws -> (bytes: [UInt8], block: CheckpointLayout.Block) {
        let damagedBlock = try blocks(of: fixture.checkpoint)[block]
        var damaged = fixture.checkpoint
        damaged[damagedBlock.offset + damagedBlock.length / 2] ^= 0x40
        return (damaged, damagedBlock)
    }

    /// The blocks of table `table` of checkpoint `bytes`, their entries checked.
    static func blocks(of bytes: [UInt8], table: Int = 0) throws -> [CheckpointLayout.Block] {
        try bytes.withUnsafeBytes { try CheckpointLayout(parsing: $0).tables[table].checkedBlocks(in: $0) }
    }

    static func deferred(_ state: StoreState, _ table: Int) -> CheckpointTable? {
        state.tables[table].deferred as? CheckpointTable
    }

    @Test(arguments: [20, 255, 256, 257, 1000])
    func readsByKeyAndPrimaryKeyAreTheFoldsAndBuildNothing(players: Int) throws {
        let fixture = try Self.fixture(players: players, name: "lazy-reads-\(players)")
        let folded = fixture.folded
        let lazy = try Self.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Self.deferred(lazy, 0))
        #expect(Self.deferred(lazy, 1) == nil && Self.deferred(lazy, 2) == nil, "tables that links touch load whole")
        #expect(lazy.count(table: 0) == folded.count(table: 0))
        #expect(lazy.nextKey(table: 0) == folded.nextKey(table: 0))
        for key in -1...(folded.nextKey(table: 0).rawValue + 2) {
            #expect(lazy.object(table: 0, key: ObjectKey(key)) == folded.object(table: 0, key: ObjectKey(key)), "key \(key)")
        }
        for (key, record) in folded.objects(table: 0) {
            #expect(lazy.key(table: 0, primaryKey: record.values[0]) == key)
        }
        for missing: PersistedValue in [.int(0), .int(2), .int(13), .int(-4), .int(Int64(players * 3 + 7)), .string("1")] {
            #expect(lazy.key(table: 0, primaryKey: missing) == folded.key(table: 0, primaryKey: missing), "\(missing)")
        }
        // A few reads leave the table unbuilt (many spend the budget; see below).
        let fresh = try Self.lazy(fixture.checkpoint, fixture.journal)
        for key in [1, 7, Int64(players / 2), Int64(players)] {
            #expect(fresh.object(table: 0, key: ObjectKey(key)) == folded.object(table: 0, key: ObjectKey(key)))
            #expect(fresh.key(table: 0, primaryKey: .int(key * 3 - 2)) == folded.key(table: 0, primaryKey: .int(key * 3 - 2)))
        }
        let freshTable = try #require(Self.deferred(fresh, 0))
        #expect(!freshTable.isBuilt)
        // String primary keys are not in the blocks' order: a lookup builds the table, and answers as the fold.
        let codes = try #require(Self.deferred(fresh, 3))
        #expect(fresh.key(table: 3, primaryKey: .string("code-7")) == folded.key(table: 3, primaryKey: .string("code-7")))
        #expect(codes.isBuilt && !freshTable.isBuilt)
        _ = table
    }

    @Test func anythingElseBuildsTheTableOnceForEveryCopy() throws {
        let fixture = try Self.fixture(players: 1000)
        let lazy = try Self.lazy(fixture.checkpoint, fixture.journal)
        let copy = lazy
        let table = try #require(Self.deferred(lazy, 0))
        #expect(lazy.keys(table: 0, property: 2, equalTo: .string("team-3")) == fixture.folded.keys(table: 0, property: 2, equalTo: .string("team-3")))
        #expect(table.isBuilt)
        #expect(Self.deferred(copy, 0) === table)
        #expect(copy.isContentEqual(fixture.folded))
        #expect(Array(copy.objects(table: 0)).map(\.key) == Array(fixture.folded.objects(table: 0)).map(\.key))
        #expect(copy._invariantViolations() == [])
        #expect(copy.backlinks(table: 2, key: ObjectKey(1)) == fixture.folded.backlinks(table: 2, key: ObjectKey(1)))
    }

    @Test func aStateFoldsOnFromALazyTable() throws {
        let fixture = try Self.fixture(players: 600)
        let lazy = try Self.lazy(fixture.checkpoint, fixture.journal)
        let more = Commit(version: 4, timestamp: Date(timeIntervalSinceReferenceDate: 4), events: [
            .delete(table: 0, key: ObjectKey(300)),
            .set(table: 0, key: ObjectKey(301), property: 2, value: .string("team-new")),
            .create(table: 0, key: ObjectKey(601), values: [.int(5_000), .string("new"), .string("team-1"), .list([])]),
        ])
        let continued = try lazy.applying(more).state
        let expected = try fixture.folded.applying(more).state
        #expect(Self.deferred(continued, 0) == nil, "a changed table holds its own parts")
        #expect(continued.isContentEqual(expected))
        #expect(continued._invariantViolations() == [])
        #expect(continued.key(table: 0, primaryKey: .int(5_000)) == ObjectKey(601))
        #expect(continued.keys(table: 0, property: 2, equalTo: .string("team-new")) == [ObjectKey(301)])
        #expect(lazy.object(table: 0, key: ObjectKey(300)) != nil, "the state it came from is unchanged")
    }

    /// Blocks are checked when first read: damage the open cannot see is
    /// found then, and the table is rebuilt from the journal, so no read
    /// ever returns the damaged bytes.
    /// With 20,000 players the journal is long enough for the rebuild to
    /// read it ahead on the read-ahead thread (``CommitReadAhead``).
    @Test(arguments: [1_000, 20_000])
    func aDamagedBlockFoundAfterTheOpenRebuildsTheTableFromTheJournal(players: Int) throws {
        let fixture = try Self.fixture(players: players)
        if players > 1_000 { #expect(CommitReadAhead.worthwhile(for: fixture.journal.reader())) }
        let (damaged, damagedBlock) = try Self.damagingBlock(2, of: fixture)
        guard case .failure(.checksum) = CheckpointFile.decode(damaged, journal: fixture.journal) else {
            Issue.record("an eager decode did not reject the damaged block")
            return
        }
        let lazy = try Self.lazy(damaged, fixture.journal)
        let table = try #require(Self.deferred(lazy, 0))
        let early = try Self.blocks(of: fixture.checkpoint)[0].firstKey + 3
        #expect(lazy.object(table: 0, key: ObjectKey(early)) == fixture.folded.object(table: 0, key: ObjectKey(early)))
        #expect(!table.isBuilt)
        let inDamaged = damagedBlock.firstKey + Int64(damagedBlock.objects / 2)
        #expect(lazy.object(table: 0, key: ObjectKey(inDamaged)) == fixture.folded.object(table: 0, key: ObjectKey(inDamaged)))
        #expect(table.isBuilt)
        #expect(lazy.isContentEqual(fixture.folded))
        #expect(lazy._invariantViolations() == [])
    }

    /// Bytes changed and every checksum recomputed: what a lazy read would
    /// decode does not fit the schema, so the table is rebuilt from the journal.
    @Test func aBlockWithAValidChecksumButValuesThatDoNotFitIsRebuiltFromTheJournal() throws {
        let fixture = try Self.fixture(players: 300)
        let block = try Self.blocks(of: fixture.checkpoint)[0]
        // The first object: key 1, primary key 1, length, then its id's tag: make the int a string's tag.
        var changed = fixture.checkpoint
        let tag = block.offset + 3
        try #require(changed[tag] == CheckpointFile.intTag)
        changed[tag] = CheckpointFile.stringTag
        let lazy = try Self.lazy(CheckpointLayout.resealed(changed), fixture.journal)
        let table = try #require(Self.deferred(lazy, 0))
        #expect(lazy.object(table: 0, key: ObjectKey(1)) == fixture.folded.object(table: 0, key: ObjectKey(1)))
        #expect(table.isBuilt)
        #expect(lazy.isContentEqual(fixture.folded))
    }

    /// The leaves `table` hands a scan from `start`, calls for the same
    /// leaf merged (a deferred table hands a leaf over in runs), until
    /// `limit` leaves.
    static func leaves(_ table: Table, from start: Int64, limit: Int = .max) -> [[String]] {
        var leaves: [(base: Int64, bits: UInt64, records: [String])] = []
        table.forEachLeaf(from: start) { base, bits, records in
            if let last = leaves.last, last.base == base {
                #expect(last.bits & bits == 0 && last.bits < bits & (~bits + 1), "runs of one leaf come in key order")
                leaves[leaves.count - 1].bits |= bits
                leaves[leaves.count - 1].records += records.map { "\($0.values)" }
            } else {
                if leaves.count == limit { return false }
                leaves.append((base, bits, records.map { "\($0.values)" }))
            }
            return true
        }
        return leaves.map { ["\($0.base)", "\($0.bits)"] + $0.records }
    }

    @Test(arguments: [0, 1, 63, 64, 300, 998, 2000])
    func aScanReadsTheBlocksAsTheFoldsLeavesWithoutBuilding(start: Int64) throws {
        let fixture = try Self.fixture(players: 1000)
        let lazy = try Self.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Self.deferred(lazy, 0))
        #expect(Self.leaves(lazy.tables[0], from: start, limit: 3) == Self.leaves(fixture.folded.tables[0], from: start, limit: 3))
        #expect(Self.leaves(lazy.tables[0], from: start) == Self.leaves(fixture.folded.tables[0], from: start))
        #expect(!table.isBuilt, "each scan starts within the budget")
    }

    /// Reading from the file has a budget of twice as many objects as the
    /// table holds; the read after it is spent builds the table.
    @Test func lazyReadsBuildTheTableOnceTheyDecodedTwiceAsManyObjectsAsItHolds() throws {
        let fixture = try Self.fixture(players: 1000)
        let lazy = try Self.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Self.deferred(lazy, 0))
        let count = lazy.count(table: 0)
        for _ in 0..<2 {
            for key in 1...Int64(count) { _ = lazy.object(table: 0, key: ObjectKey(key)) }
        }
        #expect(!table.isBuilt)
        #expect(lazy.object(table: 0, key: ObjectKey(7)) == fixture.folded.object(table: 0, key: ObjectKey(7)))
        #expect(table.isBuilt)

        let scanned = try Self.lazy(fixture.checkpoint, fixture.journal)
        let other = try #require(Self.deferred(scanned, 0))
        for _ in 0..<2 {
            #expect(Self.leaves(scanned.tables[0], from: 0).count == Self.leaves(fixture.folded.tables[0], from: 0).count)
        }
        #expect(!other.isBuilt)
        #expect(scanned.key(table: 0, primaryKey: .int(31)) == fixture.folded.key(table: 0, primaryKey: .int(31)))
        #expect(other.isBuilt)
    }

    @Test func aBlockFoundDamagedDuringAScanHandsOverToTheRebuiltTable() throws {
        let fixture = try Self.fixture(players: 1000)
        var damaged = fixture.checkpoint
        damaged[try Self.blocks(of: fixture.checkpoint)[2].offset + 40] ^= 0x08
        let lazy = try Self.lazy(damaged, fixture.journal)
        #expect(Self.leaves(lazy.tables[0], from: 5) == Self.leaves(fixture.folded.tables[0], from: 5))
        #expect(Self.deferred(lazy, 0)?.isBuilt == true)
    }

    @Test func concurrentReadersShareOneBuild() async throws {
        let fixture = try Self.fixture(players: 2000)
        let lazy = try Self.lazy(fixture.checkpoint, fixture.journal)
        let folded = fixture.folded
        let results = await withTaskGroup(of: Bool.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var same = true
                    for index in stride(from: worker, to: 2000, by: 8) {
                        let key = ObjectKey(Int64(index + 1))
                        same = same && lazy.object(table: 0, key: key) == folded.object(table: 0, key: key)
                        if let record = folded.object(table: 0, key: key) {
                            same = same && lazy.key(table: 0, primaryKey: record.values[0]) == key
                        }
                        if index % 500 == worker { same = same && lazy.objects(table: 0).count(where: { _ in true }) == 1999 }
                    }
                    return same
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        #expect(Self.deferred(lazy, 0)?.isBuilt == true)
    }

    /// A store opened from a checkpoint file reads its objects lazily, then
    /// writes, queries and reopens as any store does.
    @Test func aStoreOpensLazilyWritesAndReopens() throws {
        let configuration = try Self.lazyConfiguration()
        do {
            let store = try Store(configuration: configuration)
            try store.write {
                for id in 0..<700 { store.create(Counter.self, value: ["id": id * 2, "value": id]) }
            }
            try store.writeCheckpoint()
            try store.close()
        }
        let store = try Store(configuration: configuration)
        #expect(store.checkpoints.fileStatus == .loaded(version: store.version))
        let table = try #require(store.committedState().tableIndex(named: "Counter"))
        let deferred = try #require(Self.deferred(store.committedState(), table))
        #expect(store.object(ofType: Counter.self, forPrimaryKey: 500)?.value == 250)
        #expect(store.object(ofType: Counter.self, forPrimaryKey: 501) == nil)
        #expect(!deferred.isBuilt)
        #expect(store.objects(Counter.self).filter(#Predicate { $0.value >= 600 }).count == 100)
        #expect(!deferred.isBuilt, "a scan reads the blocks")
        #expect(Array(store.objects(Counter.self).filter(#Predicate { $0.value < 3 })).map(\.id) == [0, 2, 4])
        try store.write { store.object(ofType: Counter.self, forPrimaryKey: 2)!.value = -1 }
        #expect(deferred.isBuilt, "a write builds the table it changes")
        #expect(store.committedState()._invariantViolations() == [])
        let expected = store.committedState()
        try store.close()
        let reopened = try Store(configuration: configuration)
        #expect(reopened.object(ofType: Counter.self, forPrimaryKey: 2)?.value == -1)
        #expect(reopened.committedState().isContentEqual(expected))
    }

    /// The blocks of a checkpoint file are written in pieces of about a
    /// megabyte (``CheckpointEncoder/writePiece(to:)``): a file of several pieces
    /// reads back, eagerly and lazily, as the fold it was written from.
    @Test func aCheckpointFileOfSeveralPiecesReopensAsTheFold() throws {
        let configuration = try Self.lazyConfiguration()
        let long = String(repeating: "x", count: 700)
        do {
            let store = try Store(configuration: configuration)
            try store.write {
                for index in 0..<4_000 {
                    store.create(Person.self, value: ["firstName": "\(index) \(long)", "lastName": "L\(index)"])
                }
            }
            try store.writeCheckpoint()
            try store.close()
        }
        let checkpoint = CheckpointFile.url(for: configuration.fileURL!)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: checkpoint.path)[.size] as? Int)
        #expect(size > 2 * CheckpointEncoder.pieceBytes)
        let expected = try Store.fold(Journal(contentsOf: configuration.fileURL!))
        let store = try Store(configuration: configuration)
        #expect(store.checkpoints.fileStatus == .loaded(version: store.version))
        #expect(store.committedState().isContentEqual(expected))
        #expect(store.objects(Person.self).filter(#Predicate { $0.lastName == "L3999" }).first?.firstName == "3999 \(long)")
        try store.close()
        var eager = configuration
        eager.checkpoints.lazyTableMinimum = .max
        let decoded = try Store(configuration: eager)
        #expect(decoded.checkpoints.fileStatus == .loaded(version: decoded.version))
        #expect(decoded.committedState().isContentEqual(expected))
    }

    /// A file store whose tables of any size are read lazily from its checkpoint file.
    static func lazyConfiguration(_ name: String = #function) throws -> Store.Configuration {
        var configuration = Store.Configuration(fileURL: try JournalFixtures.journalURL(name), durability: .none)
        configuration.checkpoints.lazyTableMinimum = 1
        return configuration
    }

    /// The store of `configuration` reopened after `fill` wrote to it, a
    /// checkpoint file was written and the store closed, with the table of
    /// type `typeName` left in that file.
    static func reopenedLazily(_ configuration: Store.Configuration, table typeName: String,
                               after fill: (Store) throws -> Void) throws -> (store: Store, table: CheckpointTable) {
        do {
            let store = try Store(configuration: configuration)
            try fill(store)
            try store.writeCheckpoint()
            try store.close()
        }
        let store = try Store(configuration: configuration)
        let state = store.committedState()
        let index = try #require(state.tableIndex(named: typeName))
        return (store, try #require(deferred(state, index)))
    }

    /// A journal of 40 commits of counters, a checkpoint file at version 40,
    /// then 3 more commits; closed. Returns the configuration to open it.
    static func checkpointedJournal(_ name: String = #function) throws -> Store.Configuration {
        let configuration = try lazyConfiguration(name)
        let store = try Store(configuration: configuration)
        for round in 0..<43 {
            try store.write {
                for id in (round * 25)..<(round * 25 + 25) { store.create(Counter.self, value: ["id": id, "value": round]) }
            }
            if store.version == 40 { try store.writeCheckpoint() }
        }
        try store.close()
        return configuration
    }

    /// Opening from the checkpoint file trusts the journal's records it
    /// covers (they are checked when history reads them).
    @Test func aStoreOpeningFromItsCheckpointTrustsTheJournalPrefixItCovers() throws {
        let configuration = try Self.checkpointedJournal()
        let expected = try Store.fold(Journal(contentsOf: configuration.fileURL!))
        let store = try Store(configuration: configuration)
        #expect(store.checkpoints.fileStatus == .loaded(version: 40))
        #expect(store.journal.trustedPrefixVersion == 40)
        #expect(store.committedState().isContentEqual(expected))
        #expect(store.object(ofType: Counter.self, forPrimaryKey: 1000)?.value == 40)
        #expect(try store.frozen(at: 3).objects(Counter.self).count == 75)
        try store.write { store.create(Counter.self, value: ["id": 5000]) }
        #expect(store.version == 44)
    }

    /// A record the checkpoint covers, damaged: the open does not read it,
    /// the current state is whole, and reading that history reports the damage.
    @Test func damageInsideTheCoveredPrefixIsReportedWhenHistoryIsRead() throws {
        let configuration = try Self.checkpointedJournal()
        let url = configuration.fileURL!
        let offset = try #require(try Journal(contentsOf: url).prefix(through: 10)).recordOffset + 20
        var bytes = try JournalFixtures.bytes(url)
        bytes[offset] ^= 0x10
        try JournalFixtures.write(bytes, to: url)
        let store = try Store(configuration: configuration)
        #expect(store.checkpoints.fileStatus == .loaded(version: 40))
        #expect(store.objects(Counter.self).count == 43 * 25)
        #expect(store.object(ofType: Counter.self, forPrimaryKey: 260)?.value == 10)
        do {
            _ = try store.frozen(at: 12)
            Issue.record("a damaged record was read without an error")
        } catch {
            guard case .journal(.damaged) = error else {
                Issue.record("expected a damaged journal, got \(error)")
                return
            }
        }
        // Without the checkpoint, opening checks every record and finds it.
        #expect(JournalFixtures.journalError { try Journal(contentsOf: url) }.map {
            if case .damaged = $0 { true } else { false }
        } == true)
    }

    /// Folding the commits after the checkpoint needs the tables they
    /// change whole: those are built at open, the others stay in the file.
    @Test func theTailAfterTheCheckpointBuildsOnlyTheTablesItChanges() throws {
        let configuration = try Self.lazyConfiguration()
        do {
            let store = try Store(configuration: configuration)
            try store.write {
                for id in 0..<30 {
                    store.create(Counter.self, value: ["id": id, "value": id])
                    store.create(AllTypes.self, value: ["id": id, "string": "s\(id)"])
                }
            }
            try store.writeCheckpoint()
            try store.write { store.object(ofType: Counter.self, forPrimaryKey: 3)!.value = -3 }
            try store.close()
        }
        let store = try Store(configuration: configuration)
        let state = store.committedState()
        let counters = try #require(state.tableIndex(named: "Counter"))
        let others = try #require(state.tableIndex(named: "AllTypes"))
        #expect(Self.deferred(state, counters) == nil, "changed by the tail: built")
        #expect(Self.deferred(state, others)?.isBuilt == false, "left alone: still in the file")
        #expect(store.object(ofType: Counter.self, forPrimaryKey: 3)?.value == -3)
        #expect(store.object(ofType: AllTypes.self, forPrimaryKey: 29)?.string == "s29")
        #expect(state._invariantViolations() == [])
    }

    /// Compaction reads every object, so it builds the tables a lazy open
    /// left in the checkpoint file before the journal's history goes; the
    /// store, and the journal it writes, hold the same state.
    @Test func aStoreOpenedLazilyCompactsToTheSameState() throws {
        let configuration = try Self.checkpointedJournal()
        do {
            // A checkpoint at the last version: the open then folds nothing, which would build the table.
            let store = try Store(configuration: configuration)
            try store.writeCheckpoint()
            try store.close()
        }
        let store = try Store(configuration: configuration)
        let table = try #require(store.committedState().tableIndex(named: "Counter"))
        let deferred = try #require(Self.deferred(store.committedState(), table))
        #expect(!deferred.isBuilt)
        let before = store.committedState()
        try store.compact()
        #expect(deferred.isBuilt)
        #expect(store.committedState().isContentEqual(before))
        #expect(store.journal.baseVersion == 42)
        try store.write { store.object(ofType: Counter.self, forPrimaryKey: 7)!.value = 700 }
        let expected = store.committedState()
        try store.close()
        let reopened = try Store(configuration: configuration)
        #expect(reopened.committedState().isContentEqual(expected))
        #expect(reopened.object(ofType: Counter.self, forPrimaryKey: 7)?.value == 700)
    }

    /// A frozen state can outlive its store: a table rebuilt after the
    /// store closed its journal reads the same file again.
    @Test func recoveryAfterTheJournalClosedReadsTheFileAgain() throws {
        let commits = Self.commits(players: 300)
        let url = try ReplayFixtures.journal(commits)
        let journal = try Journal(fileURL: url, durability: .none)
        let folded = try ReplayFixtures.prefixStates(commits).last!
        let recovery = CheckpointRecovery(journal: journal, version: 3)
        try journal.close()
        let table = recovery.table(0, of: Self.player, nextKey: folded.nextKey(table: 0).rawValue)
        #expect(Array(table.objects).map(\.key) == Array(folded.tables[0].objects).map(\.key))
        #expect(table.primaryKeyIndex[.int(28)] == folded.key(table: 0, primaryKey: .int(28)))
    }

    /// When the checkpoint and the journal are both damaged there is nothing
    /// to read the state from: the program stops and says so.
    @Test func aDamagedCheckpointOverADamagedJournalStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let fixture = try LazyCheckpointTests.fixture(players: 1000, name: "lazy-double-fault")
            var damaged = fixture.checkpoint
            damaged[try LazyCheckpointTests.blocks(of: fixture.checkpoint)[1].offset + 10] ^= 0x40
            let lazy = try LazyCheckpointTests.lazy(damaged, fixture.journal)
            // The journal's second commit, damaged after the journal was opened.
            let url = try #require(fixture.journal.fileURL)
            var bytes = try JournalFixtures.bytes(url)
            bytes[bytes.count / 2] ^= 0x40
            try JournalFixtures.write(bytes, to: url)
            _ = lazy.object(table: 0, key: ObjectKey(300))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Restore the journal from a backup"), "stderr: \(message)")
    }
}
