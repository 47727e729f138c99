import Foundation
import Testing
@testable import Chronicle

/// A checkpoint's block entries sit outside its directory, a checksum per
/// group of 64 blocks: opening reads none of them, a lookup checks one
/// group, and a group whose entries fail — their checksum, or their shape
/// under a valid checksum — is treated as a damaged block would be.
@Suite("Replay: checkpoint block entries, checked a group at a time")
struct CheckpointGroupTests {
    typealias Lazy = LazyCheckpointTests

    /// 40,000 players: 157 blocks of up to 256, in three groups.
    static let fixture = Result { try Lazy.fixture(players: 40_000, name: "checkpoint-groups") }

    static func layout(_ bytes: [UInt8]) throws -> CheckpointLayout {
        try bytes.withUnsafeBytes { try CheckpointLayout(parsing: $0) }
    }

    /// Where field `field` (a byte offset in an entry) of block `block`'s entry is in `bytes`.
    static func entryField(_ field: Int, ofBlock block: Int, in bytes: [UInt8]) throws -> Int {
        try layout(bytes).tables[0].entriesOffset + block * CheckpointLayout.entrySize + field
    }

    @Test func theDirectoryHoldsGroupsAndTheirEntriesAddUp() throws {
        let fixture = try Self.fixture.get()
        let table = try Self.layout(fixture.checkpoint).tables[0]
        #expect(table.blockCount > 2 * CheckpointLayout.groupBlocks && table.groups.count == 3)
        let blocks = try Lazy.blocks(of: fixture.checkpoint)
        #expect(blocks.count == table.blockCount)
        #expect(blocks.reduce(0) { $0 + $1.objects } == table.count)
        for (index, group) in table.groups.enumerated() {
            let members = blocks[table.blocks(ofGroup: index)]
            #expect(group.firstKey == members.first?.firstKey && group.firstPrimaryKey == members.first?.firstPrimaryKey)
            #expect(group.objects == members.reduce(0) { $0 + $1.objects })
            #expect(group.offset == members.first?.offset && group.length == members.reduce(0) { $0 + $1.length })
        }
    }

    @Test func openingChecksNoEntriesAndALookupChecksOneGroup() throws {
        let fixture = try Self.fixture.get()
        let groups = try Self.layout(fixture.checkpoint).tables[0].groups
        let lazy = try Lazy.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        #expect(table.checkedGroupCount == 0)
        let key = ObjectKey(groups[1].firstKey + 10)
        #expect(lazy.object(table: 0, key: key) == fixture.folded.object(table: 0, key: key))
        #expect(table.checkedGroupCount == 1)
        // Ids are 3 × index + 1: the tenth player after the third group's first.
        let id = PersistedValue.int(groups[2].firstPrimaryKey + 30)
        let found = lazy.key(table: 0, primaryKey: id)
        #expect(found != nil && found == fixture.folded.key(table: 0, primaryKey: id))
        #expect(table.checkedGroupCount == 2)
        // The last key of a group and the first of the next.
        for probe in [groups[1].firstKey - 1, groups[1].firstKey, groups[2].firstKey - 1] {
            #expect(lazy.object(table: 0, key: ObjectKey(probe)) == fixture.folded.object(table: 0, key: ObjectKey(probe)))
        }
        #expect(table.checkedGroupCount == 3 && !table.isBuilt)
    }

    /// A flipped bit in one group's entries: the open does not see it,
    /// reads in other groups answer from the file, and the first read that
    /// needs that group rebuilds the table from the journal.
    @Test func damagedEntriesFailOnlyTheReadsThatNeedTheirGroup() throws {
        let fixture = try Self.fixture.get()
        let groups = try Self.layout(fixture.checkpoint).tables[0].groups
        var damaged = fixture.checkpoint
        damaged[try Self.entryField(16, ofBlock: 2 * CheckpointLayout.groupBlocks + 3, in: damaged)] ^= 0x04
        guard case .failure(.checksum) = CheckpointFile.decode(damaged, journal: fixture.journal) else {
            Issue.record("an eager decode did not reject the damaged entries")
            return
        }
        let lazy = try Lazy.lazy(damaged, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        let early = ObjectKey(groups[0].firstKey + 100)
        #expect(lazy.object(table: 0, key: early) == fixture.folded.object(table: 0, key: early))
        #expect(!table.isBuilt)
        let late = ObjectKey(groups[2].firstKey + 100)
        #expect(lazy.object(table: 0, key: late) == fixture.folded.object(table: 0, key: late))
        #expect(table.isBuilt)
        #expect(lazy.isContentEqual(fixture.folded))
        #expect(lazy._invariantViolations() == [])
    }

    /// Entries changed and every checksum recomputed: each change breaks
    /// what a group's entries must say (tiling, counts, key order, the
    /// group's first keys). The eager decode rejects the file; a lazy read
    /// of that group rebuilds the table; either way the state is the fold's.
    @Test(arguments: [
        (field: 0, block: 70, delta: 1),              // an offset one byte off: the blocks no longer tile
        (field: 12, block: 70, delta: 1),             // one object more than the group holds
        (field: 16, block: 71, delta: -256),          // a first key below the previous block's
        (field: 16, block: 64, delta: 1),             // the group's first block no longer starts at its first key
        (field: 24, block: 127, delta: 1_000_000),    // a first primary key above the next group's
    ])
    func entriesThatDoNotAddUpAreRefusedUnderValidChecksums(field: Int, block: Int, delta: Int64) throws {
        let fixture = try Self.fixture.get()
        var changed = fixture.checkpoint
        let at = try Self.entryField(field, ofBlock: block, in: changed)
        let width = field == 12 ? 4 : 8
        var value = changed[at..<(at + width)].reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
        value &+= delta
        for index in 0..<width { changed[at + index] = UInt8(truncatingIfNeeded: value >> (8 * Int64(index))) }
        changed = CheckpointLayout.resealed(changed)
        guard case .failure(.format) = CheckpointFile.decode(changed, journal: fixture.journal) else {
            Issue.record("an eager decode did not reject the changed entries")
            return
        }
        let lazy = try Lazy.lazy(changed, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        let groups = try Self.layout(changed).tables[0].groups
        let key = ObjectKey(groups[block / CheckpointLayout.groupBlocks].firstKey + 5)
        #expect(lazy.object(table: 0, key: key) == fixture.folded.object(table: 0, key: key))
        #expect(table.isBuilt)
        #expect(lazy.isContentEqual(fixture.folded))
    }

    /// An open then a full iteration: every group is checked, once.
    @Test func aFullScanChecksEveryGroupOnce() throws {
        let fixture = try Self.fixture.get()
        let lazy = try Lazy.lazy(fixture.checkpoint, fixture.journal)
        let table = try #require(Lazy.deferred(lazy, 0))
        var keys: [Int64] = []
        _ = table.forEachLeaf(from: 0) { base, bits, _ in
            var bits = bits
            while bits != 0 {
                keys.append(base + Int64(bits.trailingZeroBitCount))
                bits &= bits - 1
            }
            return true
        }
        #expect(keys == Array(fixture.folded.objects(table: 0)).map(\.key.rawValue))
        #expect(table.checkedGroupCount == 3)
    }
}
