/// The records of the objects a commit creates, decoded straight from the
/// journal (``CreateValuesReceiver``): what the fold's read-ahead thread
/// makes of each commit it reads (``StoreState/readCreatingRecords(_:)``).
///
/// Each create's values are decoded onto the stack and made into a record
/// at once: no array of values is allocated per object, filled, and freed
/// again (which, with the event that held it, was about a third of the
/// reading thread's work), and the records a fold keeps are allocated one
/// after another.
struct DecodedRecords: CreateValuesReceiver {
    /// One record per `.create` event decoded, in event order.
    private(set) var records = ContiguousArray<ObjectRecord>()

    static var keepsValues: Bool { false }

    /// - Complexity: O(`count`), one allocation (the record's).
    mutating func decodeValues(count: Int, from reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        let record = try withUnsafeTemporaryAllocation(of: PersistedValue.self, capacity: count) {
            (values) throws(BinaryReader.Malformed) -> ObjectRecord in
            let base = values.baseAddress.unsafelyUnwrapped
            var decoded = 0
            // What was decoded before a malformed value is destroyed too.
            defer { base.deinitialize(count: decoded) }
            while decoded < count {
                (base + decoded).initialize(to: try EventCodec.decodeValue(&reader))
                decoded += 1
            }
            return ObjectRecord(UnsafeBufferPointer(values))
        }
        records.append(record)
    }
}
