import Foundation

/// What a checkpoint file's header and directory say: everything but the
/// objects and their blocks' entries, which stay in the file until read.
///
/// The directory gives each table one summary per group of up to
/// ``groupBlocks`` blocks (where the group's blocks start and end, how
/// many objects they hold, its first keys, the checksum of its blocks'
/// entries); the entries themselves, fixed-size, sit between the directory
/// and the blocks. Parsing checks the header's and the directory's
/// checksums and that the groups tile the blocks in key order; it reads no
/// entry and no block. A group's entries are checked the first time one
/// is needed (``checkedEntries(ofGroup:in:)``), as thoroughly as a parse
/// of all of them would: so opening a store and reading one object reads
/// one group and one block, whatever the size of the state.
///
/// - Complexity: O(types + groups) to parse; O(``groupBlocks``) to check a
///   group's entries.
struct CheckpointLayout: Sendable {
    /// magic · format · journal file id · version · record offset · record
    /// checksum · blocks length · directory length · header checksum: the
    /// header the encoder writes (``CheckpointFile/formatVersion``).
    static let headerSize = headerSize(format: CheckpointFile.formatVersion)
    /// Where a format 4 header keeps the length of the blocks.
    static let blocksLengthOffset = 46

    /// The header's size in a file of format `format`: format 3 had no
    /// blocks length (its blocks followed its entries, to the end of the file).
    static func headerSize(format: UInt16) -> Int { format >= 4 ? 8 + 2 + 16 + 8 + 8 + 4 + 8 + 4 + 4 : 8 + 2 + 16 + 8 + 8 + 4 + 4 + 4 }
    /// The bytes of a block's entry: offset u64 · length u32 · objects u32
    /// · first key i64 · first primary key i64 · checksum u32.
    static let entrySize = 8 + 4 + 4 + 8 + 8 + 4
    /// The blocks one group's checksum covers the entries of.
    static let groupBlocks = 64

    /// How many groups `blocks` blocks make.
    static func groupCount(forBlocks blocks: Int) -> Int { (blocks + groupBlocks - 1) / groupBlocks }

    /// One run of objects of one table, checked as a whole.
    struct Block: Sendable, Equatable {
        /// Where the block starts: in the encoder, from the start of the
        /// blocks; once read from a file, from the start of the file.
        var offset: Int
        var length: Int
        var objects: Int
        var firstKey: Int64
        /// The first object's primary key if the table has a primary-key
        /// field (−1 for a value that is not a non-negative integer).
        var firstPrimaryKey: Int64
        /// CRC32C of the block's bytes.
        var checksum: UInt32
    }

    /// Up to ``groupBlocks`` consecutive blocks of a table, as the
    /// directory sums them up: a block's fields for the run they make
    /// (where the first starts, their bytes and objects, the first keys),
    /// but the checksum is of their entries.
    typealias Group = Block

    /// One table: its type, its counts, its groups.
    struct Table: Sendable {
        var schema: TypeSchema
        var nextKey: Int64
        var count: Int
        /// Whether each object carries its primary key as a number ahead of
        /// its values (a type whose primary key is a non-collection `Int`).
        var hasPrimaryKeyField: Bool
        /// Whether those primary keys are all non-negative and ascend with
        /// the object keys, so blocks can be searched by primary key.
        var primaryKeysAscend: Bool
        var blockCount: Int
        var groups: [Group]
        /// Where the table's block entries start in the file (once parsed).
        var entriesOffset = 0
        /// Where the blocks of every table start in the file: the origin
        /// of an entry's offset.
        var blocksStart = 0

        /// The blocks of group `group`.
        func blocks(ofGroup group: Int) -> Range<Int> {
            let start = group * CheckpointLayout.groupBlocks
            return start..<min(blockCount, start + CheckpointLayout.groupBlocks)
        }

        func encode(into w: inout BinaryWriter) {
            EventCodec.encode(schema, into: &w)
            w.signed(nextKey)
            w.varint(count)
            w.byte((hasPrimaryKeyField ? 1 : 0) | (primaryKeysAscend ? 2 : 0))
            w.varint(blockCount)
            for group in groups {
                w.varint(group.length)
                w.varint(group.objects)
                w.signed(group.firstKey)
                if hasPrimaryKeyField { w.signed(group.firstPrimaryKey) }
                w.fixed32(group.checksum)
            }
        }
    }

    /// The journal the state was folded from, through the state's version.
    var prefix: JournalPrefix
    var tables: [Table]
    /// The state's ``StoreState/schemaVersion``.
    var schemaVersion: UInt64 = 0

    /// The version of the state.
    var version: UInt64 { prefix.version }

    /// Why a header, directory or group of entries cannot be used.
    enum Failure: Error {
        case checksum
        case format(String)
    }

    /// The format of the file parsed (``CheckpointFile/readableFormats``).
    var format = CheckpointFile.formatVersion

    /// Where the parts of a file are, from its header: the directory (its
    /// checksum follows it, then the entries) and, in format 4, the blocks.
    private struct Places {
        var headerSize: Int
        var directory: Range<Int>
        /// The blocks' bytes (format 4); nil in format 3, where they follow the entries.
        var blocks: Range<Int>?
        var entriesStart: Int { directory.upperBound + 4 }

        /// The places `bytes`' header gives, or nil if they do not fit in
        /// `bytes` (checksums not checked).
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.count >= 10 else { return nil }
            let format = UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt16.self))
            headerSize = CheckpointLayout.headerSize(format: format)
            guard bytes.count >= headerSize else { return nil }
            let directoryLength = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: headerSize - 8, as: UInt32.self)))
            var start = headerSize
            if format >= 4 {
                let length = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: CheckpointLayout.blocksLengthOffset, as: UInt64.self))
                guard length <= UInt64(bytes.count - headerSize) else { return nil }
                blocks = headerSize..<(headerSize + Int(length))
                start += Int(length)
            }
            guard directoryLength + 4 <= bytes.count - start else { return nil }
            directory = start..<(start + directoryLength)
        }
    }

    /// Parses the header and directory of `bytes`, a whole checkpoint file.
    init(parsing bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard bytes.count >= Self.headerSize(format: 3) else { throw .format("only \(bytes.count) bytes") }
        guard bytes.prefix(8).elementsEqual(CheckpointFile.magic) else { throw .format("not a checkpoint file") }
        func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
            T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        format = load(8, as: UInt16.self)
        guard CheckpointFile.readableFormats.contains(format) else { throw .format("unknown checkpoint format \(format)") }
        let headerSize = Self.headerSize(format: format)
        guard bytes.count >= headerSize else { throw .format("only \(bytes.count) bytes") }
        guard CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[..<(headerSize - 4)]))
                == load(headerSize - 4, as: UInt32.self) else { throw .checksum }
        let recordOffset = load(34, as: UInt64.self)
        guard recordOffset <= UInt64(Int.max) else { throw .format("a record offset beyond any file") }
        prefix = JournalPrefix(fileID: UUID(uuid: bytes.loadUnaligned(fromByteOffset: 10, as: uuid_t.self)),
                               version: load(26, as: UInt64.self), recordOffset: Int(recordOffset),
                               recordChecksum: load(42, as: UInt32.self))
        guard let places = Places(bytes) else { throw .format("the directory or the blocks run past the end") }
        let entriesStart = places.entriesStart
        let directory = UnsafeRawBufferPointer(rebasing: bytes[places.directory])
        guard CRC32C.checksum(directory) == load(entriesStart - 4, as: UInt32.self) else { throw .checksum }
        do throws(BinaryReader.Malformed) {
            var r = BinaryReader(directory)
            let typeCount = try r.count(limit: r.remaining)
            var tables: [Table] = []
            var entries = entriesStart
            for _ in 0..<typeCount {
                var table = Table(schema: try EventCodec.decodeSchema(&r), nextKey: try r.signed(), count: try r.count(limit: Int.max),
                                  hasPrimaryKeyField: false, primaryKeysAscend: false, blockCount: 0, groups: [])
                let flags = try r.byte()
                table.hasPrimaryKeyField = flags & 1 != 0
                table.primaryKeysAscend = flags & 2 != 0
                guard flags & ~3 == 0, table.hasPrimaryKeyField || !table.primaryKeysAscend else { throw r.fail("unknown table flags") }
                table.blockCount = try r.count(limit: (bytes.count - entries) / Self.entrySize)
                table.entriesOffset = entries
                entries += table.blockCount * Self.entrySize
                // Each group takes at least seven bytes of the directory.
                let groupCount = Self.groupCount(forBlocks: table.blockCount)
                guard groupCount <= r.remaining / 7 else { throw r.fail("more groups than the directory holds") }
                table.groups.reserveCapacity(groupCount)
                for group in 0..<groupCount {
                    let length = try r.count(limit: bytes.count)
                    let objects = try r.count(limit: length / 3)
                    let firstKey = try r.signed()
                    let firstPrimaryKey = table.hasPrimaryKeyField ? try r.signed() : -1
                    let checksum = try r.fixed32()
                    // Each block holds an object, and each object takes at
                    // least three bytes (key, length, a value's tag).
                    guard objects >= table.blocks(ofGroup: group).count else { throw r.fail("a group with an empty block") }
                    if let previous = table.groups.last {
                        guard firstKey > previous.firstKey else { throw r.fail("groups out of key order") }
                        if table.primaryKeysAscend, firstPrimaryKey <= previous.firstPrimaryKey { throw r.fail("primary keys out of order") }
                    }
                    table.groups.append(Group(offset: 0, length: length, objects: objects, firstKey: firstKey,
                                              firstPrimaryKey: firstPrimaryKey, checksum: checksum))
                }
                let objects = table.groups.reduce(0) { $0 + $1.objects }
                guard objects == table.count else { throw r.fail("\(objects) objects in groups for a count of \(table.count)") }
                tables.append(table)
            }
            // The schema version follows the tables when it is not 0, so
            // files of stores that never migrated are as they always were.
            if !r.isAtEnd { schemaVersion = try r.varint() }
            guard r.isAtEnd else { throw r.fail("\(r.remaining) bytes after the directory") }
            // The blocks, table after table: after the header (format 4,
            // the entries then end the file), or after the entries to the
            // end of the file (format 3).
            if places.blocks != nil, entries != bytes.count { throw r.fail("\(bytes.count - entries) bytes after the last entry") }
            let blocks = places.blocks ?? entries..<bytes.count
            var next = blocks.lowerBound
            for index in tables.indices {
                tables[index].blocksStart = blocks.lowerBound
                for group in tables[index].groups.indices {
                    guard tables[index].groups[group].length <= blocks.upperBound - next else { throw r.fail("a group runs past the blocks") }
                    tables[index].groups[group].offset = next
                    next += tables[index].groups[group].length
                }
            }
            guard next == blocks.upperBound else { throw r.fail("\(blocks.upperBound - next) bytes after the last block") }
            self.tables = tables
        } catch {
            throw .format("\(error)")
        }
    }

    /// The bytes of `block` of `file`, if their checksum holds.
    static func checkedBytes(of block: Block, in file: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        let bytes = UnsafeRawBufferPointer(rebasing: file[block.offset..<(block.offset + block.length)])
        return CRC32C.checksum(bytes) == block.checksum ? bytes : nil
    }

    /// `bytes` with every checksum recomputed — the header's, the
    /// directory's and, if the directory parses, each block's and each
    /// group's entries' — so changed bytes reach the decoder instead of
    /// failing a checksum (for tests and the fuzzer: the decoder must
    /// withstand hostile files with valid checksums). A directory that
    /// parses is written again as the encoder writes it.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 10 else { return bytes }
        var bytes = bytes
        func seal(_ range: Range<Int>, at offset: Int) {
            let crc = bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[range])) }
            withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(offset..<(offset + 4), with: $0) }
        }
        let headerSize = headerSize(format: UInt16(bytes[8]) | UInt16(bytes[9]) << 8)
        guard bytes.count >= headerSize else { return bytes }
        // The header even when what it says does not fit: its other checks then run.
        seal(0..<(headerSize - 4), at: headerSize - 4)
        guard let places = bytes.withUnsafeBytes({ Places($0) }) else { return bytes }
        seal(places.directory, at: places.entriesStart - 4)
        guard var layout = bytes.withUnsafeBytes({ try? CheckpointLayout(parsing: $0) }) else { return bytes }
        var directory = BinaryWriter(capacity: places.directory.count + 64)
        directory.varint(layout.tables.count)
        for index in layout.tables.indices {
            let table = layout.tables[index]
            for block in 0..<table.blockCount {
                let entry = bytes.withUnsafeBytes { table.entry(block, in: $0) }
                guard entry.offset >= 0, entry.length >= 0, entry.offset <= bytes.count - entry.length else { continue }
                seal(entry.offset..<(entry.offset + entry.length), at: table.entriesOffset + block * entrySize + entrySize - 4)
            }
            for group in table.groups.indices {
                layout.tables[index].groups[group].checksum = bytes.withUnsafeBytes { CRC32C.checksum(table.entryBytes(ofGroup: group, in: $0)) }
            }
            layout.tables[index].encode(into: &directory)
        }
        if layout.schemaVersion != 0 { directory.varint(layout.schemaVersion) }
        let encoded = directory.bytes
        var header = Array(bytes[..<(places.headerSize - 8)])
        withUnsafeBytes(of: UInt32(encoded.count).littleEndian) { header.append(contentsOf: $0) }
        header += withUnsafeBytes(of: CRC32C.checksum(header).littleEndian) { Array($0) }
        let blocks = places.blocks.map { bytes[$0] } ?? []
        return header + blocks + encoded + withUnsafeBytes(of: CRC32C.checksum(encoded).littleEndian) { Array($0) } + bytes[places.entriesStart...]
    }
}
