import Synchronization

/// A table of a checkpoint file left in the mapped file at open: the
/// ``DeferredTable`` behind a store opened lazily.
///
/// Reading one object checks its group's entries and its block's checksum
/// (each once) and scans that block: the directory gives each group's
/// first key and the entries each block's, so finding it is two binary
/// searches. So is finding an object by primary key when the table's
/// integer primary keys ascend with its object keys (ids counted up, the
/// common case); other primary keys build the table first. A scan (a
/// query's, an iteration's) decodes the blocks in order, as SQLite reads
/// a table's pages. Anything else — a secondary index, a write — builds
/// the whole table once (``built()``), as an eager open would have,
/// and every state that shares this object reads the built table from
/// then on.
///
/// Reading from the file costs more per object than reading the built
/// table, so it has a budget: once twice as many objects were decoded from
/// the file as the table holds (a full iteration, which resumes its scan
/// every 64 objects, decodes up to an eighth more than it keeps), the next
/// read builds the table. Lazy reads thus never cost much more than about
/// two more builds' decoding.
///
/// Only tables that no link touches are deferred (see
/// ``StoreState/tablesTouchedByLinks()``): their backlinks are empty and
/// their objects need no other table to be checked.
///
/// A block whose checksum or contents fail, found at any point, makes the
/// table rebuild from the journal (``CheckpointRecovery``): reads never
/// return damaged data.
///
/// - Complexity: ``record(forKey:)`` and ``key(forPrimaryKey:)``
///   O(log blocks + block size) (a group's entries and a block's checksum
///   the first time);
///   ``forEachLeaf(from:_:)`` O(objects read); ``built()`` O(n) once.
final class CheckpointTable: EncodedTable {
    private let table: Int
    private let layout: CheckpointLayout.Table
    /// Per property, what checking a value needs, without copying the
    /// property's strings once per value.
    private let slots: [Slot]
    /// ``SmallASCIIString/isAvailable``, looked up once: a short string's
    /// words are then made on the spot (``plainSmallString(in:at:property:)``).
    private let smallStrings = SmallASCIIString.isAvailable
    private let file: MappedFile
    /// The checkpoint's schema and next keys, no objects: what checking a
    /// value and building the table need.
    private let schema: StoreState
    private let recovery: CheckpointRecovery
    /// One bit per group and per block: its entries, its checksum held.
    private let checked: Locked<(groups: [UInt64], blocks: [UInt64])>
    private let builtTable = OnceReference<Built>()
    /// Held while building, so only one thread builds.
    private let building = Locked<Bool>(false)
    /// How many objects were decoded from the file so far (the budget of
    /// lazy reads; see the type's documentation).
    private let decoded = Atomic<Int>(0)

    private struct Slot {
        /// A single, non-link value: checked inline (else in full).
        var isPlain: Bool
        var type: PropertyType
        var isOptional: Bool
        /// Whether a plain value of the property may be an integer, or a
        /// string: what stepping over one checks (see ``value(in:property:)``).
        var takesIntegers: Bool
        var takesStrings: Bool
    }

    private final class Built: Sendable {
        let table: Table
        init(_ table: Table) { self.table = table }
    }

    init(table: Int, layout: CheckpointLayout.Table, file: MappedFile, schema: StoreState, recovery: CheckpointRecovery) {
        self.table = table
        self.layout = layout
        slots = layout.schema.properties.map {
            Slot(isPlain: $0.collection == .none && $0.type != .object, type: $0.type, isOptional: $0.isOptional,
                 takesIntegers: $0.type.accepts(.int(0)), takesStrings: $0.type.accepts(.string("")))
        }
        self.file = file
        self.schema = schema
        self.recovery = recovery
        checked = Locked(([UInt64](repeating: 0, count: (layout.groups.count + 63) / 64),
                          [UInt64](repeating: 0, count: (layout.blockCount + 63) / 64)))
    }

    // Once built, the built table's: the two differ only for a crafted file
    // that the build rejected (see `CheckpointRecovery`).
    var count: Int { builtTable.load()?.table.ownObjects.count ?? layout.count }

    /// Whether the table was built (for tests).
    var isBuilt: Bool { builtTable.load() != nil }

    /// How many groups' entries were checked so far (for tests).
    var checkedGroupCount: Int { checked.withLock { $0.groups.reduce(0) { $0 + $1.nonzeroBitCount } } }

    /// Whether reads may still decode from the file: not built, budget left.
    private var readsFromFile: Bool {
        builtTable.load() == nil && decoded.load(ordering: .relaxed) < 2 * layout.count
    }

    func record(forKey key: Int64) -> ObjectRecord? {
        guard readsFromFile else { return builtBox().table.ownObjects[key] }
        decoded.add(1, ordering: .relaxed)
        do throws(Damage) {
            guard let block = try lastBlock(startingAtOrBelow: key, byPrimaryKey: false),
                  let found = try find(in: block, where: { object in object.key >= key }), found.key == key else { return nil }
            return try decode(found.key, found.primaryKey, found.values)
        } catch {
            return builtBox().table.ownObjects[key]
        }
    }

    func key(forPrimaryKey value: PersistedValue) -> ObjectKey? {
        guard readsFromFile, layout.primaryKeysAscend else { return builtBox().table.ownPrimaryKeyIndex[value] }
        // Every primary key here is a non-negative integer (the flag says so).
        guard case .int(let integer) = value, integer >= 0 else { return nil }
        do throws(Damage) {
            guard let block = try lastBlock(startingAtOrBelow: integer, byPrimaryKey: true),
                  let found = try find(in: block, where: { object in object.primaryKey >= integer }),
                  found.primaryKey == integer else { return nil }
            // Decoded to check it (a lookup is mostly followed by reading the object anyway).
            decoded.add(1, ordering: .relaxed)
            _ = try decode(found.key, found.primaryKey, found.values)
            return ObjectKey(found.key)
        } catch {
            return builtBox().table.ownPrimaryKeyIndex[value]
        }
    }

    func forEachLeaf(from start: Int64,
                     _ body: (_ base: Int64, _ bits: UInt64, _ values: UnsafeBufferPointer<ObjectRecord>) -> Bool) -> Bool {
        guard readsFromFile else { return false }
        var leaf = ContiguousArray<ObjectRecord>()
        leaf.reserveCapacity(64)
        var scratch = ContiguousArray<PersistedValue>()
        var base: Int64 = -1, bits: UInt64 = 0
        // Every object below `resume` went to `body`: where the built table
        // takes over if a block turns out damaged.
        var resume = start
        var count = 0
        defer { decoded.add(count, ordering: .relaxed) }
        /// Hands `body` the leaf gathered so far; whether to go on.
        func flush() -> Bool {
            guard !leaf.isEmpty else { return true }
            let goOn = leaf.withUnsafeBufferPointer { body(base, bits, $0) }
            resume = (base | Int64(63 - bits.leadingZeroBitCount)) + 1
            leaf.removeAll(keepingCapacity: true)
            bits = 0
            return goOn
        }
        do throws(Damage) {
            var block = try lastBlock(startingAtOrBelow: start, byPrimaryKey: false) ?? 0
            while block < layout.blockCount {
                var objects = try objectsOfBlock(block)
                while let object = try next(&objects) {
                    guard object.key >= start else { continue }
                    // A leaf's objects go in runs of 8 (a caller may stop
                    // anywhere; what it does not take was decoded for nothing).
                    if object.key & ~63 != base || leaf.count == 8 {
                        guard flush() else { return true }
                        base = object.key & ~63
                    }
                    bits |= 1 << UInt64(object.key & 63)
                    leaf.append(try decode(object.key, object.primaryKey, object.values, scratch: &scratch))
                    count += 1
                }
                block += 1
            }
            _ = flush()
        } catch {
            built().objects.forEachLeaf(from: resume, body)
        }
        return true
    }

    func encodedBlock(from start: Int64) -> EncodedRun {
        guard readsFromFile else { return .unavailable }
        do throws(Damage) {
            var block = try lastBlock(startingAtOrBelow: start, byPrimaryKey: false) ?? 0
            while block < layout.blockCount {
                // Only the block's shape is checked here (its checksum, its
                // keys); each value is checked when a read decodes it
                // (``value(in:property:)``).
                let entry = try entry(block)
                try checkChecksum(of: block, entry)
                let kept = try places(ofObjectsIn: entry, from: start)
                block += 1
                guard !kept.isEmpty else { continue }
                decoded.add(kept.count, ordering: .relaxed)
                return .objects(EncodedBlock(objects: kept, isLast: block == layout.blockCount, table: self, file: file))
            }
            return .end
        } catch {
            return .unavailable
        }
    }

    /// Where the values of each object of a block (`entry`, its checksum
    /// checked) whose key is at least `start` are in the file, its keys
    /// checked: the first the entry's, each above the one before, all
    /// below the table's next key; the objects as many as the entry says,
    /// their bytes the block's exactly.
    ///
    /// On the raw bytes: an iteration over a table in its checkpoint file
    /// does this once per object, and through ``BinaryReader`` it was a
    /// large part of making a handle. A varint of up to three bytes (keys
    /// and primary keys below a million, zigzag-encoded; lengths) comes from one
    /// load while eight bytes of the file follow it; any other through the
    /// reader.
    ///
    /// - Complexity: O(objects in the block).
    private func places(ofObjectsIn entry: CheckpointLayout.Block, from start: Int64) throws(Damage) -> [EncodedBlock.Entry] {
        let file = file.bytes
        let base = file.baseAddress.unsafelyUnwrapped
        let end = entry.offset + entry.length
        // Where a word may be loaded from: eight bytes before the file's end.
        let wordLimit = file.count - 8
        var offset = entry.offset
        /// The varint at `offset`, which must end before the block does.
        func varint() throws(Damage) -> UInt64 {
            if offset <= wordLimit {
                let word = UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))
                if let (value, length) = BinaryReader.oneToThreeByteVarint(word), length <= end - offset {
                    offset += length
                    return value
                }
            }
            var reader = BinaryReader(UnsafeRawBufferPointer(start: base, count: end), offset: offset)
            do {
                let value = try reader.varint()
                offset = reader.offset
                return value
            } catch {
                throw Damage()
            }
        }
        let hasPrimaryKeyField = layout.hasPrimaryKeyField, nextKey = layout.nextKey
        // Each key above the one before, the first the entry's (so all
        // are at least it, which is not negative), all below the next key.
        guard entry.firstKey >= 0, entry.objects > 0 else { throw Damage() }
        var previous = entry.firstKey &- 1, first: Int64 = -1
        var kept: [EncodedBlock.Entry] = []
        kept.reserveCapacity(entry.objects)
        for _ in 0..<entry.objects {
            let raw = try varint()
            let key = Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
            guard key > previous, key < nextKey else { throw Damage() }
            if first < 0 { first = key }
            previous = key
            if hasPrimaryKeyField { _ = try varint() }
            let length = try varint()
            // `offset` never passes `end`: every varint ends before it.
            guard length <= UInt64(end &- offset) else { throw Damage() }
            let count = Int(truncatingIfNeeded: length)
            if key >= start { kept.append(EncodedBlock.Entry(key: key, start: offset, count: count)) }
            offset &+= count
        }
        guard offset == end, first == entry.firstKey else { throw Damage() }
        return kept
    }

    /// The value of property `index` of an object whose values are
    /// `bytes` (an ``EncodedBlock``'s): the values before it are stepped
    /// over, each checked to be of its property's kind (an integer or a
    /// string by its tag alone), and the value itself decoded and checked
    /// as ``decode(_:_:_:)`` checks it. `nil` if a check fails.
    ///
    /// Less is checked than decoding the whole object checks (the strings
    /// stepped over, what follows the value): only a file crafted to pass
    /// its checksums can tell the difference.
    func value(in bytes: UnsafeRawBufferPointer, property index: Int) -> PersistedValue? {
        read(in: bytes, property: index).value
    }

    /// What a read of one value of an encoded object found (see
    /// ``read(in:property:)``).
    enum EncodedRead {
        /// A plain integer, or a string of at most ``SmallASCIIString/capacity``
        /// ASCII bytes, as a record's slot holds it: its two words and its
        /// ``RecordStorage/Tag``. Nothing to release (the string is small).
        case slot(tag: UInt64, words: (UInt64, UInt64))
        /// Any other value, decoded and checked.
        case value(PersistedValue)
        /// The value does not decode or fit the property.
        case unreadable

        /// The value read, whichever way; `nil` if unreadable.
        var value: PersistedValue? {
            switch self {
            case .slot(let tag, var words): withUnsafeBytes(of: &words) { RecordStorage.load($0.baseAddress.unsafelyUnwrapped, tag: tag) }
            case .value(let value): value
            case .unreadable: nil
            }
        }
    }

    /// ``value(in:property:)``, handing a plain integer or a short ASCII
    /// string back as a record's slot would hold it, so that a primitive
    /// read converts from there without making a ``PersistedValue`` and
    /// destroying it again (see ``ObjectBase``'s `withCurrentValue`).
    @inline(__always)
    func read(in bytes: UnsafeRawBufferPointer, property index: Int) -> EncodedRead {
        var cursor = EncodedCursor.start
        return read(in: bytes, readable: bytes.count, property: index, cursor: &cursor)
    }

    /// Where reads of one object's bytes have got to: the value of
    /// `property` starts at `offset`. A handle keeps one
    /// (``ObjectBase``), so that reading an object's properties in their
    /// order steps over no value twice; in one word, so that it can be
    /// kept in an atomic.
    struct EncodedCursor {
        /// Property in the high 16 bits, offset in the low 48.
        var word: UInt64

        /// The first value, at the start of the bytes.
        static var start: EncodedCursor { EncodedCursor(word: 0) }

        init(word: UInt64) { self.word = word }

        init(property: Int, offset: Int) {
            word = UInt64(truncatingIfNeeded: property) << 48 | UInt64(truncatingIfNeeded: offset) & 0xFFFF_FFFF_FFFF
        }

        var property: Int { Int(truncatingIfNeeded: word >> 48) }
        var offset: Int { Int(truncatingIfNeeded: word & 0xFFFF_FFFF_FFFF) }
    }

    /// ``read(in:property:)``, starting where `cursor` says the object's
    /// values before property `index` end (from the start if the cursor is
    /// past it), and moving the cursor on: past the value read if it was
    /// a plain integer or short string, else to where stepping stopped.
    ///
    /// `cursor` must have been made by reads of these same bytes (or be
    /// ``EncodedCursor/start``): the values it steps over were checked
    /// then.
    ///
    /// The `readable` bytes from the start of `bytes` (at least
    /// `bytes.count`; an ``EncodedBlock``'s object lies in its mapped file,
    /// whose bytes go on past it) may be loaded: a short value at the
    /// object's end is then read with a word load, the bytes past the
    /// object masked off, where it would be read byte by byte or copied.
    /// Nothing past `bytes.count` is ever taken as the value's.
    ///
    /// - Complexity: O(1) for the property after the last one read; else
    ///   O(values stepped over).
    @inline(__always)
    func read(in bytes: UnsafeRawBufferPointer, readable: Int, property index: Int, cursor: inout EncodedCursor) -> EncodedRead {
        // The property after the last one read, the usual case: no call.
        let (offset, stepped) = cursor.property == index ? (cursor.offset, index)
            : stepOverPlainValues(in: bytes, before: index, from: cursor.property < index ? cursor : .start)
        if stepped == index {
            if let (integer, end) = plainInteger(in: bytes, readable: readable, at: offset, property: index) {
                cursor = EncodedCursor(property: index + 1, offset: end)
                return .slot(tag: RecordStorage.Tag.int, words: (UInt64(bitPattern: integer), 0))
            }
            // The string's words go as they are: no `String` is made (and
            // retained and released) before the caller's.
            if let (words, end) = plainSmallString(in: bytes, readable: readable, at: offset, property: index) {
                cursor = EncodedCursor(property: index + 1, offset: end)
                return .slot(tag: RecordStorage.Tag.string, words: words)
            }
        }
        cursor = EncodedCursor(property: stepped, offset: offset)
        guard let value = checkedValue(in: bytes, from: offset, stepped: stepped, property: index) else { return .unreadable }
        return .value(value)
    }

    /// The checked reader's part of ``read(in:property:)``, from `offset`,
    /// where `stepped` values were stepped over.
    private func checkedValue(in bytes: UnsafeRawBufferPointer, from offset: Int, stepped: Int, property index: Int) -> PersistedValue? {
        var r = BinaryReader(bytes, offset: offset)
        do {
            for skipped in stepped..<index {
                let slot = slots[skipped]
                let tag = r.peek()
                if slot.isPlain, tag == CheckpointFile.intTag && slot.takesIntegers || tag == CheckpointFile.stringTag && slot.takesStrings {
                    try CheckpointFile.skipValue(&r)
                } else if !value(try CheckpointFile.decodeValue(&r), fits: skipped) {
                    return nil
                }
            }
            let value = try CheckpointFile.decodeValue(&r)
            return self.value(value, fits: index) ? value : nil
        } catch {
            return nil
        }
    }

    /// Steps over the plain integers and one-byte-length strings that
    /// start `bytes`, before property `index`'s value, each by its tag
    /// (checked against its property's kind) and its length alone; returns
    /// where it stopped and how many values it stepped over. It stops at
    /// anything else — a value of another kind, a longer string, bytes
    /// that run out — which ``value(in:property:)`` then reads with its
    /// checked reader.
    ///
    /// On the raw bytes, with no reader: stepping over an object's first
    /// values through ``BinaryReader`` was most of reading one value.
    private func stepOverPlainValues(in bytes: UnsafeRawBufferPointer, before index: Int,
                                     from start: EncodedCursor) -> (offset: Int, stepped: Int) {
        guard let base = bytes.baseAddress else { return (0, 0) }
        let end = bytes.count
        var offset = start.offset, stepped = start.property
        slots.withUnsafeBufferPointer { slots in
            while stepped < index, offset < end {
                let slot = slots[stepped]
                guard slot.isPlain else { return }
                let tag = base.load(fromByteOffset: offset, as: UInt8.self)
                var next = offset + 1
                if tag == CheckpointFile.intTag, slot.takesIntegers {
                    // A varint: bytes with the high bit set, then one without, 10 at most.
                    let limit = min(end, next + 10)
                    while next < limit, base.load(fromByteOffset: next, as: UInt8.self) >= 0x80 { next += 1 }
                    guard next < limit else { return }
                    next += 1
                } else if tag == CheckpointFile.stringTag, slot.takesStrings, next < end {
                    let length = Int(base.load(fromByteOffset: next, as: UInt8.self))
                    guard length < 0x80, length <= end - next - 1 else { return }
                    next += 1 + length
                } else {
                    return
                }
                offset = next
                stepped += 1
            }
        }
        return (offset, stepped)
    }

    /// The integer at `offset` of `bytes`, decoded on the raw bytes, if it
    /// is one (its tag) and property `index` takes integers — an integer
    /// fits any integer property (see `PropertyType.accepts`); `nil`
    /// otherwise, or if its varint is malformed, for the checked reader to
    /// answer.
    @inline(__always)
    private func plainInteger(in bytes: UnsafeRawBufferPointer, readable: Int, at offset: Int, property index: Int) -> (Int64, end: Int)? {
        guard let base = bytes.baseAddress, offset < bytes.count,
              base.load(fromByteOffset: offset, as: UInt8.self) == CheckpointFile.intTag,
              slots[index].isPlain, slots[index].takesIntegers else { return nil }
        var next = offset + 1
        // Up to three bytes (identifiers, scores, counts) from one load,
        // when eight bytes may be loaded after the tag; the varint must end
        // within the object's bytes.
        if readable - next >= 8 {
            let word = UInt64(littleEndian: (base + next).loadUnaligned(as: UInt64.self))
            if let (raw, length) = BinaryReader.oneToThreeByteVarint(word), length <= bytes.count - next {
                return (Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))), next + length)
            }
        }
        var raw: UInt64 = 0, shift: UInt64 = 0
        let limit = min(bytes.count, next + 10)
        while next < limit {
            let byte = base.load(fromByteOffset: next, as: UInt8.self)
            raw |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                guard shift < 63 || byte <= 1 else { return nil }
                return (Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))), next + 1)
            }
            shift += 7
            next += 1
        }
        return nil
    }

    /// The words of the string at `offset` of `bytes`, as a small string
    /// holds them (see ``SmallASCIIString``), if it is one (its tag),
    /// property `index` takes strings, and it is at most
    /// ``SmallASCIIString/capacity`` ASCII bytes (valid UTF-8 as they are;
    /// most names and titles): what the checked reader would return,
    /// without its varint, bounds and UTF-8 steps. `nil` otherwise, for
    /// the checked reader to answer.
    @inline(__always)
    private func plainSmallString(in bytes: UnsafeRawBufferPointer, readable: Int, at offset: Int,
                                  property index: Int) -> ((UInt64, UInt64), end: Int)? {
        guard smallStrings, let base = bytes.baseAddress, bytes.count - offset >= 2,
              base.load(fromByteOffset: offset, as: UInt8.self) == CheckpointFile.stringTag,
              slots[index].isPlain, slots[index].takesStrings else { return nil }
        // A length this short is one varint byte (below 0x80).
        let length = Int(base.load(fromByteOffset: offset + 1, as: UInt8.self))
        guard length <= SmallASCIIString.capacity, length <= bytes.count - offset - 2 else { return nil }
        let start = offset + 2
        // Two loads when 16 bytes may be loaded (the bytes past the
        // string are masked off), else a copy.
        let words = readable - start >= 16 ? SmallASCIIString.words(count: length, at: base + start)
            : SmallASCIIString.words(copying: UnsafeRawBufferPointer(start: base + start, count: length))
        guard let words else { return nil }
        return (words, start + length)
    }

    /// Whether `value` fits property `index` of the table, as the restore
    /// checks it.
    private func value(_ value: PersistedValue, fits index: Int) -> Bool {
        let slot = slots[index]
        if slot.isPlain, value.isNull ? slot.isOptional : slot.type.accepts(value) { return true }
        do { try schema.check(value, fits: layout.schema.properties[index]) } catch { return false }
        return true
    }

    func built() -> Table { builtBox().table }

    /// The built table, in the box every reader shares: reads take its
    /// parts from there (the built table is never deferred), without
    /// copying the whole table first.
    private func builtBox() -> Built {
        if let built = builtTable.load() { return built }
        return building.withLock { _ in
            if let built = builtTable.load() { return built }
            var state = schema
            var links = [[(target: Int64, link: Backlink)]](repeating: [], count: state.schema.count)
            var table: Table
            do throws(CheckpointFile.Rejection) {
                try CheckpointFile.restoreTable(self.table, layout: layout, file: file, into: &state, links: &links)
                table = state.tables[self.table]
            } catch {
                table = recovery.table(self.table, of: layout.schema, nextKey: layout.nextKey)
            }
            return builtTable.storeIfNil(Built(table))
        }
    }

    // MARK: Blocks

    /// A block that failed its checksum or does not decode.
    private struct Damage: Error {}

    /// The first object of `block` for which `isAtOrPast` holds (objects
    /// come in ascending key, and primary-key, order), or `nil`.
    private func find(in block: Int, where isAtOrPast: ((key: Int64, primaryKey: Int64, values: UnsafeRawBufferPointer)) -> Bool)
        throws(Damage) -> (key: Int64, primaryKey: Int64, values: UnsafeRawBufferPointer)? {
        var objects = try objectsOfBlock(block)
        while let object = try next(&objects) {
            if isAtOrPast(object) { return object }
        }
        return nil
    }

    /// The last block whose first key (with `byPrimaryKey`, first primary
    /// key) is at most `key`, or `nil` if none is: a binary search of the
    /// groups, then of one group's entries.
    private func lastBlock(startingAtOrBelow key: Int64, byPrimaryKey: Bool) throws(Damage) -> Int? {
        let group = layout.groups.partitionPoint { (byPrimaryKey ? $0.firstPrimaryKey : $0.firstKey) > key } - 1
        guard group >= 0 else { return nil }
        try checkEntries(ofGroup: group)
        // The group's first block starts at the group's first keys: at most `key`.
        let bytes = file.bytes
        return layout.blocks(ofGroup: group).partitionPoint { block in
            let entry = layout.entry(block, in: bytes)
            return (byPrimaryKey ? entry.firstPrimaryKey : entry.firstKey) > key
        } - 1
    }

    /// Block `block`'s entry, its group's entries checked (once per group).
    private func entry(_ block: Int) throws(Damage) -> CheckpointLayout.Block {
        try checkEntries(ofGroup: block / CheckpointLayout.groupBlocks)
        return layout.entry(block, in: file.bytes)
    }

    private func checkEntries(ofGroup group: Int) throws(Damage) {
        let word = group / 64, bit = UInt64(1) << UInt64(group % 64)
        if checked.withLock({ $0.groups[word] & bit }) != 0 { return }
        do { try layout.checkEntries(ofGroup: group, in: file.bytes) } catch { throw Damage() }
        checked.withLock { $0.groups[word] |= bit }
    }

    /// A reader of `block`'s objects, its checksum checked (once per block).
    private func objectsOfBlock(_ block: Int) throws(Damage) -> CheckpointBlockReader {
        try objectsOfBlock(block, try entry(block))
    }

    private func objectsOfBlock(_ block: Int, _ entry: CheckpointLayout.Block) throws(Damage) -> CheckpointBlockReader {
        try checkChecksum(of: block, entry)
        let bytes = UnsafeRawBufferPointer(rebasing: file.bytes[entry.offset..<(entry.offset + entry.length)])
        return CheckpointBlockReader(bytes, objects: entry.objects, hasPrimaryKeyField: layout.hasPrimaryKeyField)
    }

    /// Checks block `block`'s checksum against its entry (once per block).
    private func checkChecksum(of block: Int, _ entry: CheckpointLayout.Block) throws(Damage) {
        let word = block / 64, bit = UInt64(1) << UInt64(block % 64)
        if checked.withLock({ $0.blocks[word] & bit }) == 0 {
            let bytes = UnsafeRawBufferPointer(rebasing: file.bytes[entry.offset..<(entry.offset + entry.length)])
            guard CRC32C.checksum(bytes) == entry.checksum else { throw Damage() }
            checked.withLock { $0.blocks[word] |= bit }
        }
    }

    private func next(_ objects: inout CheckpointBlockReader, primaryKeys: Bool = true) throws(Damage)
        -> (key: Int64, primaryKey: Int64, values: UnsafeRawBufferPointer)? {
        do { return try objects.next(primaryKeys: primaryKeys) } catch { throw Damage() }
    }

    /// The record of object `key` from its values' bytes, checked as the
    /// restore checks it (and its primary key against the block's field).
    private func decode(_ key: Int64, _ primaryKeyField: Int64, _ bytes: UnsafeRawBufferPointer) throws(Damage) -> ObjectRecord {
        guard key >= 0, key < layout.nextKey else { throw Damage() }
        var scratch = ContiguousArray<PersistedValue>()
        return try decode(key, primaryKeyField, bytes, scratch: &scratch)
    }

    /// ``decode(_:_:_:)``, decoding the values into `scratch` first (which
    /// a loop passes again: one buffer, not an array per object).
    private func decode(_ key: Int64, _ primaryKeyField: Int64, _ bytes: UnsafeRawBufferPointer,
                        scratch values: inout ContiguousArray<PersistedValue>) throws(Damage) -> ObjectRecord {
        guard key >= 0, key < layout.nextKey else { throw Damage() }
        var r = BinaryReader(bytes)
        values.removeAll(keepingCapacity: true)
        values.reserveCapacity(slots.count)
        do {
            for index in slots.indices {
                let value = try CheckpointFile.decodeValue(&r)
                guard self.value(value, fits: index) else { throw Damage() }
                values.append(value)
            }
        } catch {
            throw Damage()
        }
        guard r.isAtEnd else { throw Damage() }
        if layout.hasPrimaryKeyField, let primaryKey = layout.schema.primaryKeyIndex,
           CheckpointFile.primaryKeyField(values[primaryKey]) != primaryKeyField {
            throw Damage()
        }
        return ObjectRecord(values)
    }
}
