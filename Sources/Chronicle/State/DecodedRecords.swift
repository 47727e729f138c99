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
            try EventCodec.decodeValue(&reader, intoSlot: slot)
        })
        records.append(record)
    }
}
