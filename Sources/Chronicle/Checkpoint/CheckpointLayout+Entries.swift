/// The blocks' entries: fixed-size records between the directory and the
/// blocks, one per block, read in place. A group's entries are trusted only
/// once ``CheckpointLayout/Table/checkEntries(ofGroup:in:)`` passed.
extension CheckpointLayout.Table {
    /// Block `index`'s entry, as the file holds it. Call it only for a block
    /// whose group's entries were checked: the values are not.
    /// - Complexity: O(1).
    func entry(_ index: Int, in file: UnsafeRawBufferPointer) -> CheckpointLayout.Block {
        let at = entriesOffset + index * CheckpointLayout.entrySize
        func load<T: FixedWidthInteger>(_ offset: Int, as type: T.Type) -> T {
            T(littleEndian: file.loadUnaligned(fromByteOffset: at + offset, as: T.self))
        }
        return CheckpointLayout.Block(offset: blocksStart &+ Int(truncatingIfNeeded: load(0, as: UInt64.self)),
                                      length: Int(load(8, as: UInt32.self)), objects: Int(load(12, as: UInt32.self)),
                                      firstKey: load(16, as: Int64.self), firstPrimaryKey: load(24, as: Int64.self),
                                      checksum: load(32, as: UInt32.self))
    }

    /// The bytes of group `group`'s entries.
    func entryBytes(ofGroup group: Int, in file: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let blocks = blocks(ofGroup: group)
        let start = entriesOffset + blocks.lowerBound * CheckpointLayout.entrySize
        return UnsafeRawBufferPointer(rebasing: file[start..<(start + blocks.count * CheckpointLayout.entrySize)])
    }

    /// Checks group `group`'s entries as a parse of them all would: their
    /// checksum; that its blocks tile the group's bytes, none empty, and
    /// hold its objects; that its first block starts at the group's first
    /// keys and the blocks' first keys (and ascending primary keys) ascend,
    /// below the next group's.
    /// - Complexity: O(``CheckpointLayout/groupBlocks``).
    func checkEntries(ofGroup group: Int, in file: UnsafeRawBufferPointer) throws(CheckpointLayout.Failure) {
        let summary = groups[group]
        guard CRC32C.checksum(entryBytes(ofGroup: group, in: file)) == summary.checksum else { throw .checksum }
        let end = summary.offset + summary.length
        var next = summary.offset, objects = 0
        var previous: CheckpointLayout.Block?
        for index in blocks(ofGroup: group) {
            let block = entry(index, in: file)
            // Each object takes at least three bytes (key, length, a value's tag).
            guard block.offset == next, block.length > 0, block.length <= end - next,
                  block.objects > 0, block.objects <= block.length / 3 else { throw .format("a block out of place") }
            if let previous {
                guard block.firstKey > previous.firstKey else { throw .format("blocks out of key order") }
                if primaryKeysAscend, block.firstPrimaryKey <= previous.firstPrimaryKey { throw .format("primary keys out of order") }
            } else if block.firstKey != summary.firstKey || block.firstPrimaryKey != summary.firstPrimaryKey {
                throw .format("a group's first keys differ from its first block's")
            }
            next += block.length
            objects += block.objects
            previous = block
        }
        guard next == end, objects == summary.objects else { throw .format("a group's blocks do not fill it") }
        if group + 1 < groups.count, let last = previous {
            guard last.firstKey < groups[group + 1].firstKey,
                  !primaryKeysAscend || last.firstPrimaryKey < groups[group + 1].firstPrimaryKey else {
                throw .format("blocks out of key order")
            }
        }
    }

    /// Every block's entry, every group's entries checked: for reading the
    /// whole table.
    /// - Complexity: O(blocks).
    func checkedBlocks(in file: UnsafeRawBufferPointer) throws(CheckpointLayout.Failure) -> [CheckpointLayout.Block] {
        var blocks: [CheckpointLayout.Block] = []
        blocks.reserveCapacity(blockCount)
        for group in groups.indices {
            try checkEntries(ofGroup: group, in: file)
            for index in self.blocks(ofGroup: group) { blocks.append(entry(index, in: file)) }
        }
        return blocks
    }

    /// Sets the table's blocks (offsets from the first block of the file):
    /// appends their entries to `entries` and sums them up in groups.
    mutating func setBlocks(_ blocks: [CheckpointLayout.Block], entries: inout BinaryWriter) {
        blockCount = blocks.count
        groups = []
        for group in 0..<CheckpointLayout.groupCount(forBlocks: blocks.count) {
            let members = blocks[self.blocks(ofGroup: group)]
            var bytes = BinaryWriter(capacity: members.count * CheckpointLayout.entrySize)
            for block in members {
                precondition(block.length <= UInt32.max && block.objects <= UInt32.max, "CheckpointEncoder: a block of 4 GB or more")
                bytes.fixed64(UInt64(block.offset))
                bytes.fixed32(UInt32(block.length))
                bytes.fixed32(UInt32(block.objects))
                bytes.fixed64(UInt64(bitPattern: block.firstKey))
                bytes.fixed64(UInt64(bitPattern: block.firstPrimaryKey))
                bytes.fixed32(block.checksum)
            }
            let first = members[members.startIndex]
            groups.append(CheckpointLayout.Group(
                offset: first.offset, length: members.reduce(0) { $0 + $1.length }, objects: members.reduce(0) { $0 + $1.objects },
                firstKey: first.firstKey, firstPrimaryKey: first.firstPrimaryKey,
                checksum: bytes.withWrittenBytes { CRC32C.checksum($0) }))
            bytes.withWrittenBytes { entries.raw($0) }
        }
    }
}
