/// The `.create` events of a commit, taken out of its events and each
/// object's values decoded straight into its record
/// (``CreateValuesReceiver``): what the fold's read-ahead thread makes of
/// each commit it reads (``StoreState/readCreatingRecords(_:)``).
///
/// Each create's values are decoded straight into its record's slots
/// (``RecordStorage/decoding(count:predictedSlotBytes:_:)``): no array of values is allocated
/// per object, filled, and freed again (which, with the event that held
/// it, was about a third of the reading thread's work), no value is made
/// and destroyed on the way for an integer or a string, and the records a
/// fold keeps are allocated one after another. No ``Event`` is made for a
/// create either, so none is copied, switched over and destroyed on either
/// thread: a commit of creates alone hands over an empty array of events.
struct DecodedCreates: CreateValuesReceiver {
    /// One per `.create` event decoded, in event order.
    private(set) var creates = ContiguousArray<DecodedCreate>()

    /// The value count of the last create decoded and the bytes its
    /// record's slots took: the size the next record of as many values is
    /// allocated for.
    private var previous: (count: Int, slotBytes: Int) = (-1, 0)

    /// ``SmallASCIIString/isAvailable``, looked up once (see ``decodeValue(_:intoSlot:smallStrings:)``).
    private let smallStrings = SmallASCIIString.isAvailable

    static var keepsValues: Bool { false }

    /// Makes room for `count` creates at once: the array would otherwise
    /// grow, copying what it holds, several times over a commit of creates.
    mutating func expect(events count: Int) {
        creates.reserveCapacity(creates.count + count)
    }

    /// The values are decoded in place into a record allocated for the
    /// slots the previous create of as many values took (see
    /// ``RecordStorage/decoding(count:predictedSlotBytes:_:)``): the
    /// creates of a commit are mostly of one type, and their values of
    /// the same kinds.
    ///
    /// - Complexity: O(`valueCount`), one allocation (the record's).
    mutating func decodeCreate(table: Int, key: ObjectKey, valueCount: Int, before position: Int,
                               from reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        let smallStrings = smallStrings
        // A copy of the reader, written back once: the offset then stays
        // in a register rather than being stored at every value.
        var r = reader
        defer { reader = r }
        let (storage, slotBytes) = try RecordStorage.decoding(
            count: valueCount, predictedSlotBytes: valueCount == previous.count ? previous.slotBytes : nil,
            nextIsNarrow: { r.peek() == EventCodec.intTag }
        ) { (slot) throws(BinaryReader.Malformed) in
            try Self.decodeValue(&r, intoSlot: slot, smallStrings: smallStrings)
        }
        previous = (valueCount, slotBytes)
        creates.append(DecodedCreate(record: ObjectRecord(storage: storage), key: key, table: table, before: position))
    }

    /// Decodes one value as ``EventCodec/decodeValue(_:depth:)`` does,
    /// straight into an uninitialised 16-byte `slot` (see
    /// ``RecordStorage``), and returns its kind (``RecordStorage/Tag``).
    ///
    /// An integer or a string, the commonest values, go into the slot with
    /// no ``PersistedValue`` made and destroyed around them; any other
    /// value is decoded by the codec. Throws what the codec throws, and
    /// then leaves `slot` uninitialised. `smallStrings`:
    /// ``SmallASCIIString/isAvailable``; a short ASCII string's two words
    /// then go into the slot as they are (such a string holds no
    /// reference: nothing to retain).
    @inline(__always)
    static func decodeValue(_ r: inout BinaryReader, intoSlot slot: UnsafeMutableRawPointer,
                            smallStrings: Bool = SmallASCIIString.isAvailable) throws(BinaryReader.Malformed) -> UInt64 {
        switch r.peek() {
        case EventCodec.intTag?:
            r.skipPeekedByte()
            slot.storeBytes(of: try r.signedInline(), as: Int64.self)
            return RecordStorage.Tag.int
        case EventCodec.stringTag?:
            r.skipPeekedByte()
            if smallStrings, let words = r.shortASCIIStringWords() {
                slot.storeBytes(of: words.0, as: UInt64.self)
                slot.storeBytes(of: words.1, toByteOffset: 8, as: UInt64.self)
            } else {
                slot.initializeMemory(as: String.self, to: try r.string())
            }
            return RecordStorage.Tag.string
        default:
            let value = try EventCodec.decodeValue(&r)
            RecordStorage.initialize(slot, with: value)
            return RecordStorage.Tag.of(value)
        }
    }
}

/// A `.create` event taken out of its commit's events (``DecodedCreates``):
/// the object's table, key and record, and where it goes among the events
/// left.
struct DecodedCreate: Sendable {
    /// The object's values.
    let record: ObjectRecord
    /// The object's key.
    let key: ObjectKey
    /// The object's table index.
    let table: Int
    /// The index, in the commit's events, of the event this create came
    /// before (the events' count if it came after the last).
    let before: Int
}
