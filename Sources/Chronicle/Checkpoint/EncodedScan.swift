/// Walks a deferred table's objects in key order, block by block, leaving
/// them encoded: how iterating all of a type's objects while its table is
/// still in the checkpoint file makes a handle per object without decoding
/// it (see ``EncodedBlock``).
///
/// Each step yields an object's key and the block that holds it, unretained:
/// the scan keeps the block until its next step (a retain and a release saved
/// per object). When the table says its objects should come from the built
/// table instead (it was built, its read budget is spent, or a block is
/// damaged), the scan stops and says where the caller's own scan should resume,
/// so no object is skipped or yielded twice.
///
/// - Complexity: O(1) a step, plus checking one block (about 256 objects)
///   every block's worth of steps.
struct EncodedScan {
    enum Step {
        /// The block stays valid until the scan's next step; the object's
        /// values are at the place in it.
        case object(ObjectKey, Unmanaged<EncodedBlock>, EncodedBlock.Place)
        case end
        /// Read on from the built table, from this key.
        case unavailable(resume: ObjectKey)
    }

    /// `nil` when the table cannot be read encoded: the scan then ends at once, unavailable.
    private let table: (any EncodedTable)?
    private var block: EncodedBlock?
    private var position = 0
    /// The key after the last object yielded.
    private var resume: Int64 = 0

    init(_ table: any DeferredTable) {
        self.table = table as? any EncodedTable
    }

    mutating func next() -> Step {
        if let block, position < block.objects.count {
            let key = block.objects[position].key
            let place = block.place(at: position)
            position += 1
            resume = key + 1
            return .object(ObjectKey(key), Unmanaged.passUnretained(block), place)
        }
        if let block, block.isLast { return .end }
        guard let table else { return .unavailable(resume: ObjectKey(resume)) }
        switch table.encodedBlock(from: resume) {
        case .objects(let next):
            block = next
            position = 0
            return self.next()
        case .end:
            block = nil
            return .end
        case .unavailable:
            block = nil
            return .unavailable(resume: ObjectKey(resume))
        }
    }
}
