import Foundation

/// The values of one ``ObjectRecord`` in one allocation, each inline in a
/// slot of its kind's width, their kinds packed four bits each.
///
/// A `ContiguousArray<PersistedValue>` spends 24 bytes on every value (the
/// enum is as wide as its widest case, a `Decimal`, plus its tag) and 32 on
/// its header. Here a string, `Data`, a UUID, an object identifier or a
/// collection's array takes a 16-byte slot, and every other value 8 bytes —
/// a number, a date, a Boolean, a link, a null, a `Decimal` (20 bytes,
/// rare) in a box of its own — and the kinds of the first twelve values
/// share one 8-byte header word with the count. A player of two integers
/// and two strings takes 72 bytes, not 128.
///
/// Layout, in 8-byte words after the object's own header:
///
/// - the header word: the count in bits 0..<16, then the kinds of values
///   0..<12, four bits each ("tags", see ``Tag``);
/// - for values 12 and on, their tags, sixteen to a word;
/// - the slots, in order, 16 bytes for a tag of 8 and above (``Tag/isWide(_:)``:
///   its top bit set), 8 for the others.
///
/// A slot's place follows from the tags before it: for a type of at most
/// twelve properties three operations on the header word count the wide
/// ones (``offset(of:)``), with no loop and no other word read. (A
/// collection's array, 8 bytes, gets 16 so that the top bit of a tag
/// alone says its width.) A value is
/// replaced in place only by one of its slot's width
/// (``replaceSlot(_:_:)``); ``ObjectRecord`` makes the record anew
/// otherwise. A null that replaces a wide value in place keeps its slot's
/// width with a tag of its own (``Tag/wideNull``): only an unmanaged
/// object's values do that (``UnmanagedValues``); a stored record's nulls
/// are all 8 bytes, so that records of equal values are laid out alike.
///
/// Storage is written only while uniquely referenced (``ObjectRecord``
/// checks `isKnownUniquelyReferenced` first, and copies otherwise). That is
/// what makes ``ObjectRecord`` `Sendable` (`ManagedBuffer` is not).
final class RecordStorage: ManagedBuffer<UInt64, UInt64> {
    /// A value's kind, in four bits.
    enum Tag {
        static let null: UInt64 = 0, bool: UInt64 = 1, int: UInt64 = 2, float: UInt64 = 3
        static let double: UInt64 = 4, date: UInt64 = 5, link: UInt64 = 6, decimal: UInt64 = 7
        static let list: UInt64 = 8, set: UInt64 = 9, map: UInt64 = 10
        /// A null in a 16-byte slot, where a wide value was replaced in
        /// place (see ``RecordStorage``).
        static let wideNull: UInt64 = 11
        static let string: UInt64 = 12, data: UInt64 = 13, uuid: UInt64 = 14, objectId: UInt64 = 15

        /// Whether a value of kind `tag` takes a 16-byte slot (else 8):
        /// whether the tag's top bit is set.
        @inline(__always)
        static func isWide(_ tag: UInt64) -> Bool { tag & 8 != 0 }

        /// Whether `tag` is a null's, in a slot of either width.
        @inline(__always)
        static func isNull(_ tag: UInt64) -> Bool { tag == null || tag == wideNull }

        /// The tag of the values a plain property of `type` holds (never
        /// ``null``: for a link, ``link``).
        @inline(__always)
        static func of(_ type: PropertyType) -> UInt64 {
            switch type {
            case .bool: bool
            case .int, .int8, .int16, .int32, .int64: int
            case .float: float
            case .double: double
            case .string, .url: string
            case .data: data
            case .date: date
            case .uuid: uuid
            case .decimal: decimal
            case .objectId: objectId
            case .object: link
            }
        }

        /// The tag of `value`'s case.
        @inline(__always)
        static func of(_ value: PersistedValue) -> UInt64 {
            switch value {
            case .null: null
            case .bool: bool
            case .int: int
            case .float: float
            case .double: double
            case .date: date
            case .link: link
            case .decimal: decimal
            case .list: list
            case .set: set
            case .map: map
            case .string: string
            case .data: data
            case .uuid: uuid
            case .objectId: objectId
            }
        }
    }

    /// Tags that fit in the header word after the count.
    static let headerTags = 12

    /// The width in bytes of a slot holding a value of kind `tag`: 8 or 16.
    @inline(__always)
    static func width(_ tag: UInt64) -> Int { Tag.isWide(tag) ? 16 : 8 }

    /// A one in the low bit of each four-bit group of `tags` whose tag
    /// takes a 16-byte slot (its top bit set), zeros elsewhere.
    @inline(__always)
    static func wideNibbles(_ tags: UInt64) -> UInt64 {
        (tags &>> 3) & 0x1111_1111_1111_1111
    }

    /// The number of wide slots among the first `n` (at most
    /// ``headerTags``) values of a record whose header word is `word`.
    /// O(1): the wide ones' bits are summed by one multiplication into the
    /// top four bits (at most twelve ones, so no sum carries).
    @inline(__always)
    static func wideCount(headerWord word: UInt64, before n: Int) -> Int {
        let wide = wideNibbles(word &>> 16) & ((1 &<< UInt64(truncatingIfNeeded: 4 &* n)) &- 1)
        return Int(truncatingIfNeeded: (wide &* 0x1111_1111_1111_1111) &>> 60)
    }

    /// The byte offset, from the first element, of value `property`'s
    /// slot (or, for `property == count`, the end of the slots) in a
    /// record whose header word is `word` and tag words `extraTags`.
    /// O(1) for `property` ≤ ``headerTags``, else O(`property` / 16).
    static func offset(of property: Int, word: UInt64, extraTags: UnsafePointer<UInt64>) -> Int {
        let count = Int(truncatingIfNeeded: word & 0xFFFF)
        let start = 8 &* extraTagWords(count)
        guard property > headerTags else { return start &+ 8 &* property &+ 8 &* wideCount(headerWord: word, before: property) }
        var wide = wideCount(headerWord: word, before: headerTags)
        var remaining = property &- headerTags, tagWord = 0
        while remaining >= 16 {
            wide &+= wideNibbles(extraTags[tagWord]).nonzeroBitCount
            remaining &-= 16
            tagWord &+= 1
        }
        if remaining > 0 {
            wide &+= (wideNibbles(extraTags[tagWord]) & ((1 &<< UInt64(4 &* remaining)) &- 1)).nonzeroBitCount
        }
        return start &+ 8 &* property &+ 8 &* wide
    }

    /// The byte offset of `property`'s slot in every record of a type of
    /// `properties` whose values fit their properties, if the properties
    /// before it fix it: a collection (never null) or a string, `URL`,
    /// `Data`, UUID or object identifier property takes 16 bytes, any other
    /// 8, and an optional one of the latter only 8 when it is null. `nil`
    /// when such an optional property comes before `property`. O(`property`).
    static func fixedOffset(of property: Int, in properties: [PropertySchema]) -> Int? {
        var offset = 8 * extraTagWords(properties.count)
        for earlier in properties[..<property] {
            if earlier.collection != .none {
                offset += 16
                continue
            }
            let wide = Tag.isWide(Tag.of(earlier.type))
            if wide, earlier.isOptional { return nil }
            offset += wide ? 16 : 8
        }
        return offset
    }

    /// A `Decimal` (20 bytes) kept out of line, so that no slot is wider than 16.
    final class DecimalBox: Sendable {
        let value: Decimal
        init(_ value: Decimal) { self.value = value }
    }

    /// Storage for `values`. O(*n*).
    static func make<C: Collection>(_ values: C) -> RecordStorage where C.Element == PersistedValue {
        let count = values.count
        precondition(count <= Int(UInt16.max), "ObjectRecord: at most \(UInt16.max) values")
        var header = UInt64(count)
        var index = 0, wide = 0
        var extraTags = ContiguousArray<UInt64>(repeating: 0, count: extraTagWords(count))
        for value in values {
            let tag = Tag.of(value)
            if Tag.isWide(tag) { wide += 1 }
            if index < headerTags {
                header |= tag << UInt64(16 + 4 * index)
            } else {
                let extra = index - headerTags
                extraTags[extra >> 4] |= tag << UInt64(4 * (extra & 15))
            }
            index += 1
        }
        let storage = unsafeDowncast(create(minimumCapacity: extraTags.count + count + wide) { _ in header }, to: RecordStorage.self)
        storage.withUnsafeMutablePointerToElements { elements in
            for (word, tags) in extraTags.enumerated() { elements[word] = tags }
            var slot = UnsafeMutableRawPointer(elements + extraTags.count)
            for value in values {
                initialize(slot, with: value)
                slot += width(Tag.of(value))
            }
        }
        return storage
    }

    /// Storage for `count` values that `decode` writes one after another,
    /// each into the slot it is given (16 bytes of room), returning each
    /// one's ``Tag``: what the fold's read-ahead does with a `.create`
    /// event's values (see ``DecodedCreates/decodeValue(_:intoSlot:smallStrings:)``),
    /// with no ``PersistedValue`` made, copied into the record and destroyed
    /// in between. Returns the storage and the bytes its slots take.
    ///
    /// A slot's place follows from the kinds before it, and the
    /// allocation's size from all of them, known only once decoded: the
    /// storage is allocated for `predictedSlotBytes` of slots (what the
    /// previous record of the same type took, usually the same kinds;
    /// `nil`: 16 bytes a value, the most), and the values are decoded in
    /// place. A value that would not fit is decoded aside; if the
    /// prediction was short, the values move to a storage of the most
    /// (a record made from a prediction too long keeps the bytes it did
    /// not use). Where 8 bytes are left, `nextIsNarrow` says whether the
    /// next value `decode` writes takes 8 bytes at most (a narrow ``Tag``):
    /// it then goes in place too (a record's last value is often an
    /// integer with exactly its 8 bytes left).
    ///
    /// If `decode` throws, the values it wrote before are destroyed and
    /// the storage freed; the error is rethrown.
    ///
    /// - Complexity: O(`count`) plus `decode`; one allocation (two when the
    ///   prediction was short).
    @inline(__always)
    static func decoding<E: Error>(count: Int, predictedSlotBytes: Int?, nextIsNarrow: () -> Bool = { false },
                                   _ decode: (UnsafeMutableRawPointer) throws(E) -> UInt64) throws(E) -> (RecordStorage, slotBytes: Int) {
        precondition(count <= Int(UInt16.max), "ObjectRecord: at most \(UInt16.max) values")
        let extraWords = extraTagWords(count)
        var capacity = predictedSlotBytes ?? 16 &* count
        // Its count stays 0 until every value is in: a storage freed after a
        // failed decode destroys nothing in its deinit.
        var storage = unsafeDowncast(create(minimumCapacity: extraWords &+ capacity &>> 3) { _ in 0 }, to: RecordStorage.self)
        // The storage is held for the whole decode: its elements stay put.
        var elements = storage.withUnsafeMutablePointerToElements { $0 }
        for word in 0..<extraWords { elements[word] = 0 }
        var header = UInt64(count)
        var slots = UnsafeMutableRawPointer(elements + extraWords)
        var offset = 0, index = 0
        do throws(E) {
            while index < count {
                var tag: UInt64
                if offset &+ 16 <= capacity || (offset &+ 8 <= capacity && nextIsNarrow()) {
                    tag = try decode(slots + offset)
                } else {
                    var aside: (UInt64, UInt64) = (0, 0)
                    tag = try withUnsafeMutableBytes(of: &aside) { (bytes) throws(E) -> UInt64 in try decode(bytes.baseAddress.unsafelyUnwrapped) }
                    if offset &+ width(tag) > capacity {
                        // Predicted short: the values so far move, bit for
                        // bit, to a storage with room for the most.
                        capacity = 16 &* count
                        let larger = unsafeDowncast(create(minimumCapacity: extraWords &+ capacity &>> 3) { _ in 0 }, to: RecordStorage.self)
                        let largerElements = larger.withUnsafeMutablePointerToElements { $0 }
                        largerElements.update(from: elements, count: extraWords)
                        UnsafeMutableRawPointer(largerElements + extraWords).copyMemory(from: slots, byteCount: offset)
                        withExtendedLifetime(storage) {}
                        storage = larger
                        elements = largerElements
                        slots = UnsafeMutableRawPointer(largerElements + extraWords)
                    }
                    (slots + offset).storeBytes(of: aside.0, as: UInt64.self)
                    if Tag.isWide(tag) { (slots + offset).storeBytes(of: aside.1, toByteOffset: 8, as: UInt64.self) }
                }
                if index < headerTags {
                    header |= tag &<< UInt64(truncatingIfNeeded: 16 &+ 4 &* index)
                } else {
                    let extra = index &- headerTags
                    elements[extra &>> 4] |= tag &<< UInt64(truncatingIfNeeded: 4 &* (extra & 15))
                }
                offset &+= width(tag)
                index &+= 1
            }
        } catch {
            var slot = slots
            for decoded in 0..<index {
                let tag = decoded < headerTags
                    ? (header >> UInt64(16 + 4 * decoded)) & 0xF
                    : (elements[(decoded - headerTags) >> 4] >> UInt64(4 * ((decoded - headerTags) & 15))) & 0xF
                deinitialize(slot, tag: tag)
                slot += width(tag)
            }
            withExtendedLifetime(storage) {}
            throw error
        }
        storage.word = header
        return (storage, offset)
    }

    /// Storage for the `count` values in `slots`, 16 bytes each whatever
    /// their kinds `tags`, moved into it bit for bit (the slots are left
    /// uninitialised): how a record is made from values set one after
    /// another before their kinds, and so their slots' places and the
    /// allocation's size, are known — an unmanaged object's, registered by
    /// its wrappers (``UnmanagedValues``). No ``PersistedValue`` is made,
    /// copied and destroyed on the way.
    ///
    /// - Complexity: O(`count`); one allocation.
    @inline(__always)
    static func moving(count: Int, slots: UnsafeMutableRawPointer, tags: UnsafePointer<UInt64>) -> RecordStorage {
        precondition(count <= Int(UInt16.max), "ObjectRecord: at most \(UInt16.max) values")
        let extraWords = extraTagWords(count)
        var header = UInt64(truncatingIfNeeded: count), wide = 0
        for index in 0..<count {
            if Tag.isWide(tags[index]) { wide &+= 1 }
            if index < headerTags { header |= tags[index] &<< UInt64(truncatingIfNeeded: 16 &+ 4 &* index) }
        }
        let storage = unsafeDowncast(create(minimumCapacity: extraWords &+ count &+ wide) { _ in header }, to: RecordStorage.self)
        storage.withUnsafeMutablePointerToElements { elements in
            if extraWords > 0 {
                for word in 0..<extraWords { elements[word] = 0 }
                for index in headerTags..<count {
                    let extra = index &- headerTags
                    elements[extra &>> 4] |= tags[index] &<< UInt64(truncatingIfNeeded: 4 &* (extra & 15))
                }
            }
            var target = UnsafeMutableRawPointer(elements + extraWords)
            for index in 0..<count {
                let source = UnsafeRawPointer(slots + 16 &* index)
                target.storeBytes(of: source.load(as: UInt64.self), as: UInt64.self)
                if Tag.isWide(tags[index]) {
                    target.storeBytes(of: source.load(fromByteOffset: 8, as: UInt64.self), toByteOffset: 8, as: UInt64.self)
                    target += 16
                } else {
                    target += 8
                }
            }
        }
        return storage
    }

    /// A storage of the same values, for a copy about to change one. O(*n*),
    /// one allocation.
    func copy() -> RecordStorage {
        let count = self.count, extraWords = Self.extraTagWords(count)
        let copy = unsafeDowncast(Self.create(minimumCapacity: slotsEnd / 8) { _ in self.word }, to: RecordStorage.self)
        withUnsafeMutablePointerToElements { source in
            copy.withUnsafeMutablePointerToElements { target in
                for word in 0..<extraWords { target[word] = source[word] }
                var offset = 8 * extraWords
                for property in 0..<count {
                    let tag = tag(of: property)
                    let slot = UnsafeMutableRawPointer(target) + offset
                    if tag == Tag.wideNull {
                        slot.storeBytes(of: 0, as: UInt64.self)
                        slot.storeBytes(of: 0, toByteOffset: 8, as: UInt64.self)
                    } else {
                        Self.initialize(slot, with: Self.load(UnsafeRawPointer(source) + offset, tag: tag))
                    }
                    offset += Self.width(tag)
                }
            }
        }
        return copy
    }

    deinit {
        let word = self.word
        let count = Int(truncatingIfNeeded: word & 0xFFFF)
        guard count > 0 else { return }
        withUnsafeMutablePointerToElements { elements in
            guard count <= Self.headerTags else {
                var slot = UnsafeMutableRawPointer(elements) + 8 &* Self.extraTagWords(count)
                for property in 0..<count {
                    let tag = tag(of: property)
                    Self.deinitialize(slot, tag: tag)
                    slot += Self.width(tag)
                }
                return
            }
            // The header word holds every tag: shifted through, with no
            // slot visited whose value is a number, nor a short ASCII
            // string's, which holds no reference (freeing a store frees
            // each of its records, whose names and labels are mostly such).
            var tags = word &>> 16
            var slot = UnsafeMutableRawPointer(elements)
            let smallASCII = SmallASCIIString.isAvailable
            for _ in 0..<count {
                let tag = tags & 0xF
                if tag >= Tag.decimal,
                   tag != Tag.string || !smallASCII
                       || !SmallASCIIString.holdsNoReference(secondWord: slot.load(fromByteOffset: 8, as: UInt64.self)) {
                    Self.deinitialize(slot, tag: tag)
                }
                tags &>>= 4
                slot += Self.width(tag)
            }
        }
    }

    /// The number of values. O(1).
    @inline(__always)
    var count: Int { Int(truncatingIfNeeded: word & 0xFFFF) }

    /// The byte offset of the end of the slots from the first element:
    /// the storage's size past its header word. O(1) for at most twelve
    /// values.
    var slotsEnd: Int {
        withUnsafeMutablePointerToElements { Self.offset(of: count, word: word, extraTags: $0) }
    }

    /// Whether any value is null (``Tag/isNull(_:)``). O(count); for at
    /// most twelve values, a few operations on the header word, no slot
    /// read. (An unmanaged object's record marks each value kept outside
    /// it with a null slot, see ``UnmanagedValues``.)
    var containsNull: Bool {
        let word = self.word
        let count = Int(truncatingIfNeeded: word & 0xFFFF)
        guard count <= Self.headerTags else { return (0..<count).contains { Tag.isNull(tag(of: $0)) } }
        // A zero nibble among the first `count`, found without a loop:
        // subtracting 1 from each nibble borrows out of, and sets the top
        // bit of, the lowest zero one (only a nibble below a zero one can
        // be set wrongly, and then a zero one exists anyway). A wide null
        // is a zero nibble once the tags are xor'ed with its tag.
        let mask: UInt64 = count == 0 ? 0 : ~0 &>> UInt64(64 &- 4 &* count)
        let ones = 0x1111_1111_1111_1111 & mask, tops = 0x8888_8888_8888_8888 & mask
        let tags = (word &>> 16) & mask
        let wideNulls = tags ^ (0xBBBB_BBBB_BBBB_BBBB & mask)
        return ((tags &- ones) & ~tags | (wideNulls &- ones) & ~wideNulls) & tops != 0
    }

    /// The header word, read through a pointer: `ManagedBuffer.header` is
    /// a stored property of a class, so each access to it is checked for
    /// exclusivity at run time (a call into the runtime), which a scan
    /// reading every record's kind could not afford. The storage is
    /// written only while uniquely referenced, so no access overlaps a write.
    @inline(__always)
    var word: UInt64 {
        get { withUnsafeMutablePointerToHeader { $0.pointee } }
        set { withUnsafeMutablePointerToHeader { $0.pointee = newValue } }
    }

    /// The header word (``word``) of a record holding a non-null value of
    /// each of `properties`' kinds, `nil` if there are more than
    /// ``headerTags`` or one is a link or a collection. A record with this
    /// word passes every check of a create's values
    /// (``StoreState/checkCreatedValues(_:_:)``): its count is right, and
    /// each value is of the kind its plain property takes. O(properties).
    static func plainWord(_ properties: UnsafeBufferPointer<PropertySchema>) -> UInt64? {
        guard properties.count <= headerTags else { return nil }
        var word = UInt64(properties.count)
        for (index, property) in properties.enumerated() {
            guard property.collection == .none, property.type != .object else { return nil }
            word |= Tag.of(property.type) << UInt64(16 + 4 * index)
        }
        return word
    }

    /// Extra words of tags for `count` values.
    @inline(__always)
    static func extraTagWords(_ count: Int) -> Int {
        count > headerTags ? (count - headerTags + 15) >> 4 : 0
    }

    /// The tag of value `property` (< ``count``). O(1).
    @inline(__always)
    func tag(of property: Int) -> UInt64 {
        // Wrapping arithmetic and masking shifts: `property` < `count`, so
        // neither overflows, and the checks would cost a read a third more.
        if property < Self.headerTags { return (word &>> UInt64(truncatingIfNeeded: 16 &+ 4 &* property)) & 0xF }
        let extra = property &- Self.headerTags
        return withUnsafeMutablePointerToElements { ($0[extra &>> 4] &>> UInt64(truncatingIfNeeded: 4 &* (extra & 15))) & 0xF }
    }

    /// The byte offset of value `property`'s slot (< ``count``) from the
    /// first element. O(1) for a record of at most twelve values (see
    /// ``wideCount(headerWord:before:)``), else O(`property` / 16).
    @inline(__always)
    func offset(of property: Int) -> Int {
        let word = self.word
        if word & 0xFFFF <= UInt64(Self.headerTags) {
            return 8 &* property &+ 8 &* Self.wideCount(headerWord: word, before: property)
        }
        return withUnsafeMutablePointerToElements { Self.offset(of: property, word: word, extraTags: $0) }
    }

    /// The integer in the slot at `offset`, which must hold one (the
    /// caller knows it from the schema). O(1); reads nothing else.
    @inline(__always)
    func integer(inSlot offset: Int) -> Int64 {
        withUnsafeMutablePointerToElements { UnsafeRawPointer($0).load(fromByteOffset: offset, as: Int64.self) }
    }

    /// Appends each value's encoding to `w`, in order, as
    /// ``EventCodec/encode(_:into:)`` writes it: an integer and a string of
    /// at most 15 ASCII bytes straight from their slots, any other value
    /// through a ``PersistedValue``. O(values).
    // A write's `.create` events are encoded from their records: a
    // `PersistedValue` per value, copied out, switched over and destroyed,
    // made it about 1,300 instructions an object of four values (W1).
    func encodeValues(into w: inout BinaryWriter) {
        let count = self.count
        let smallASCII = SmallASCIIString.isAvailable
        withUnsafeMutablePointerToElements { elements in
            var slot = UnsafeRawPointer(elements) + 8 &* Self.extraTagWords(count)
            for property in 0..<count {
                let tag = tag(of: property)
                defer { slot += Self.width(tag) }
                if tag == Tag.int {
                    w.tagged(EventCodec.intTag, signed: slot.load(as: Int64.self))
                    continue
                }
                if tag == Tag.string, smallASCII {
                    let words = (slot.load(as: UInt64.self), slot.load(fromByteOffset: 8, as: UInt64.self))
                    if let length = SmallASCIIString.count(ofWords: words) {
                        w.taggedSmallASCII(EventCodec.stringTag, words: words, count: length)
                        continue
                    }
                }
                EventCodec.encode(Self.load(slot, tag: tag), into: &w)
            }
        }
    }

    /// Every value, in order, in a new array. O(*n*), one allocation.
    func array() -> [PersistedValue] {
        let count = self.count, start = 8 * Self.extraTagWords(count)
        var values: [PersistedValue] = []
        values.reserveCapacity(count)
        withUnsafeMutablePointerToElements { elements in
            var slot = UnsafeRawPointer(elements) + start
            for property in 0..<count {
                let tag = tag(of: property)
                values.append(Self.load(slot, tag: tag))
                slot += Self.width(tag)
            }
        }
        return values
    }

    /// The value of `property` (< ``count``). O(1) (see ``offset(of:)``).
    @inline(__always)
    func value(at property: Int) -> PersistedValue {
        slot(of: property) { Self.load($0, tag: $1) }
    }

    /// Calls `body` with the slot of `property` (< ``count``) and its tag.
    /// O(1); for a type of at most twelve properties, one read of the
    /// header word gives both.
    @inline(__always)
    func slot<R>(of property: Int, _ body: (UnsafeRawPointer, UInt64) -> R) -> R {
        let word = self.word
        let tag: UInt64, offset: Int
        if word & 0xFFFF <= UInt64(Self.headerTags) {
            tag = (word &>> UInt64(truncatingIfNeeded: 16 &+ 4 &* property)) & 0xF
            offset = 8 &* property &+ 8 &* Self.wideCount(headerWord: word, before: property)
        } else {
            tag = self.tag(of: property)
            offset = self.offset(of: property)
        }
        return withUnsafeMutablePointerToElements { body(UnsafeRawPointer($0) + offset, tag) }
    }

    /// ``slot(of:_:)`` for a slot at byte offset `fixedOffset`, which the
    /// schema fixes for every record of the table
    /// (``fixedOffset(of:in:)``), or anywhere if it is −1: the kinds before
    /// it need not be counted.
    @inline(__always)
    func slot<R>(of property: Int, fixedOffset: Int, _ body: (UnsafeRawPointer, UInt64) -> R) -> R {
        guard fixedOffset >= 0 else { return slot(of: property, body) }
        assert(fixedOffset == offset(of: property), "RecordStorage: value \(property) is not where its schema puts it")
        let tag = property < Self.headerTags ? (word &>> UInt64(truncatingIfNeeded: 16 &+ 4 &* property)) & 0xF : tag(of: property)
        return withUnsafeMutablePointerToElements { body(UnsafeRawPointer($0) + fixedOffset, tag) }
    }

    /// The integer at `property` if it holds one. O(1), without making a
    /// ``PersistedValue``: the scans' integer comparisons read this.
    @inline(__always)
    func integer(at property: Int) -> Int64? {
        slot(of: property) { slot, tag in tag == Tag.int ? slot.load(as: Int64.self) : nil }
    }

    /// Replaces the value of `property` in place: only while uniquely
    /// referenced.
    @inline(__always)
    func replace(_ property: Int, with value: PersistedValue) {
        replaceSlot(property) { slot in
            Self.initialize(slot, with: value)
            return Tag.of(value)
        }
    }

    /// Replaces the value of `property` in place with what `initialize`
    /// writes into its (deinitialised) slot, of the kind it returns: only
    /// while uniquely referenced (an unmanaged object's values, see
    /// ``UnmanagedValues``, are, until `add` files them).
    ///
    /// The new value must take a slot of the old one's width
    /// (``width(_:)``), or be a null, which in a wide slot gets the tag
    /// ``Tag/wideNull``. `initialize` writes 16 bytes only for a wide kind.
    @inline(__always)
    func replaceSlot(_ property: Int, _ initialize: (UnsafeMutableRawPointer) -> UInt64) {
        let old = tag(of: property)
        let offset = offset(of: property)
        withUnsafeMutablePointerToElements { elements in
            let slot = UnsafeMutableRawPointer(elements) + offset
            Self.deinitialize(slot, tag: old)
            var new = initialize(slot)
            if Self.width(new) != Self.width(old) {
                precondition(new == Tag.null, "RecordStorage: a value of another width replaced value \(property) in place")
                slot.storeBytes(of: 0, toByteOffset: 8, as: UInt64.self)
                new = Tag.wideNull
            }
            if property < Self.headerTags {
                let shift = UInt64(16 + 4 * property)
                word = word & ~(0xF << shift) | new << shift
            } else {
                let extra = property - Self.headerTags, shift = UInt64(4 * (extra & 15))
                elements[extra >> 4] = elements[extra >> 4] & ~(0xF << shift) | new << shift
            }
        }
    }

    /// Destroys the value of kind `tag` in `slot` (a slot outside any
    /// record, written by ``initialize(_:with:)`` or a type's
    /// ``_PersistableProperty/_initializeUnmanagedSlot(_:)``).
    static func deinitializeSlot(_ slot: UnsafeMutableRawPointer, tag: UInt64) {
        deinitialize(slot, tag: tag)
    }

    /// See ``ObjectRecord/_checkInvariants()``.
    func _checkInvariants() {
        let count = self.count
        var values: [PersistedValue] = []
        for property in 0..<count {
            let tag = tag(of: property)
            precondition(tag != Tag.wideNull, "RecordStorage: value \(property) is a null in a wide slot, which only an unmanaged object's values hold")
            values.append(value(at: property))
        }
        let fresh = Self.make(values)
        precondition(fresh.word == word, "RecordStorage: header \(word), made afresh \(fresh.word)")
        let extraWords = Self.extraTagWords(count)
        withUnsafeMutablePointerToElements { mine in
            fresh.withUnsafeMutablePointerToElements { theirs in
                for word in 0..<extraWords {
                    precondition(mine[word] == theirs[word], "RecordStorage: tag word \(word) differs from a fresh record's")
                }
            }
        }
        precondition(slotsEnd == fresh.slotsEnd, "RecordStorage: slots end at \(slotsEnd), made afresh at \(fresh.slotsEnd)")
        var slot = 8 * extraWords
        for property in 0..<count {
            precondition(offset(of: property) == slot, "RecordStorage: slot \(property) misplaced")
            slot += Self.width(tag(of: property))
            precondition(offset(of: property) == fresh.offset(of: property), "RecordStorage: slot \(property) misplaced")
            precondition(fresh.value(at: property) == values[property], "RecordStorage: value \(property) does not round-trip")
        }
    }

    // MARK: Slots

    /// The value in `slot`, whose kind is `tag`.
    @inline(__always)
    static func load(_ slot: UnsafeRawPointer, tag: UInt64) -> PersistedValue {
        switch tag {
        case Tag.null: .null
        case Tag.bool: .bool(slot.load(as: Bool.self))
        case Tag.int: .int(slot.load(as: Int64.self))
        case Tag.float: .float(slot.load(as: Float.self))
        case Tag.double: .double(slot.load(as: Double.self))
        case Tag.date: .date(slot.load(as: Date.self))
        case Tag.link: .link(ObjectKey(slot.load(as: Int64.self)))
        case Tag.decimal: .decimal(slot.load(as: DecimalBox.self).value)
        case Tag.list: .list(slot.load(as: [PersistedValue].self))
        case Tag.set: .set(slot.load(as: [PersistedValue].self))
        case Tag.map: .map(slot.load(as: [MapEntry].self))
        case Tag.wideNull: .null
        case Tag.string: .string(slot.load(as: String.self))
        case Tag.data: .data(slot.load(as: Data.self))
        case Tag.uuid: .uuid(slot.load(as: UUID.self))
        default: .objectId(slot.load(as: ObjectId.self))
        }
    }

    /// Writes `value` into the uninitialised `slot`, as a record holds it
    /// (its tag: `Tag.of(value)`).
    @inline(__always)
    static func initialize(_ slot: UnsafeMutableRawPointer, with value: PersistedValue) {
        switch value {
        case .null: slot.storeBytes(of: 0, as: UInt64.self)
        case .bool(let bool): slot.storeBytes(of: 0, as: UInt64.self); slot.storeBytes(of: bool, as: Bool.self)
        case .int(let int): slot.storeBytes(of: int, as: Int64.self)
        case .float(let float): slot.storeBytes(of: 0, as: UInt64.self); slot.storeBytes(of: float, as: Float.self)
        case .double(let double): slot.storeBytes(of: double, as: Double.self)
        case .date(let date): slot.storeBytes(of: date, as: Date.self)
        case .link(let key): slot.storeBytes(of: key.rawValue, as: Int64.self)
        case .decimal(let decimal): slot.initializeMemory(as: DecimalBox.self, repeating: DecimalBox(decimal), count: 1)
        case .list(let elements), .set(let elements):
            slot.storeBytes(of: 0, toByteOffset: 8, as: UInt64.self)
            slot.initializeMemory(as: [PersistedValue].self, repeating: elements, count: 1)
        case .map(let entries):
            slot.storeBytes(of: 0, toByteOffset: 8, as: UInt64.self)
            slot.initializeMemory(as: [MapEntry].self, repeating: entries, count: 1)
        case .string(let string): slot.initializeMemory(as: String.self, repeating: string, count: 1)
        case .data(let data): slot.initializeMemory(as: Data.self, repeating: data, count: 1)
        case .uuid(let uuid): slot.storeBytes(of: uuid, as: UUID.self)
        case .objectId(let id): slot.initializeMemory(as: ObjectId.self, repeating: id, count: 1)
        }
    }

    @inline(__always)
    private static func deinitialize(_ slot: UnsafeMutableRawPointer, tag: UInt64) {
        switch tag {
        case Tag.decimal: slot.assumingMemoryBound(to: DecimalBox.self).deinitialize(count: 1)
        case Tag.list, Tag.set: slot.assumingMemoryBound(to: [PersistedValue].self).deinitialize(count: 1)
        case Tag.map: slot.assumingMemoryBound(to: [MapEntry].self).deinitialize(count: 1)
        case Tag.string: slot.assumingMemoryBound(to: String.self).deinitialize(count: 1)
        case Tag.data: slot.assumingMemoryBound(to: Data.self).deinitialize(count: 1)
        default: break  // trivial kinds
        }
    }
}
