/// The records of the objects a commit creates, decoded straight from the
/// journal (``CreateValuesReceiver``): what the fold's read-ahead thread
/// makes of each commit it reads (``StoreState/readCreatingRecords(_:)``).
///
/// Each create's values are decoded straight into its record's slots
/// (``RecordStorage/decoding(count:_:)``): no array of values is allocated
/// per object, filled, and freed again (which, with the event that held
/// it, was about a third of the reading thread's work), no value is made
/// and destroyed on the way for an integer or a string, and the records a
/// fold keeps are allocated one after another.
struct DecodedRecords: CreateValuesReceiver {
    /// One record per `.create` event decoded, in event order.
    private(set) var records = ContiguousArray<ObjectRecord>()

    static var keepsValues: Bool { false }

    /// - Complexity: O(`count`), one allocation (the record's).
    mutating func decodeValues(count: Int, from reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        let record = ObjectRecord(storage: try RecordStorage.decoding(count: count) { (slot) throws(BinaryReader.Malformed) in
            try Self.decodeValue(&reader, intoSlot: slot)
        })
        records.append(record)
    }

    /// Decodes one value as ``EventCodec/decodeValue(_:depth:)`` does,
    /// straight into a record's uninitialised 16-byte `slot` (see
    /// ``RecordStorage``), and returns its kind (``RecordStorage/Tag``).
    ///
    /// An integer or a string, the commonest values, go into the slot with
    /// no ``PersistedValue`` made and destroyed around them; any other
    /// value is decoded by the codec. Throws what the codec throws, and
    /// then leaves `slot` uninitialised.
    @inline(__always)
    static func decodeValue(_ r: inout BinaryReader, intoSlot slot: UnsafeMutableRawPointer) throws(BinaryReader.Malformed) -> UInt64 {
        switch r.peek() {
        case EventCodec.intTag?:
            r.skipPeekedByte()
            slot.storeBytes(of: try r.signed(), as: Int64.self)
            return RecordStorage.Tag.int
        case EventCodec.stringTag?:
            r.skipPeekedByte()
            slot.initializeMemory(as: String.self, to: try r.string())
            return RecordStorage.Tag.string
        default:
            let value = try EventCodec.decodeValue(&r)
            RecordStorage.initialize(slot, with: value)
            return RecordStorage.Tag.of(value)
        }
    }
}
