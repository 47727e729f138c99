/// One checkpoint block's objects left as the bytes they are stored as:
/// what an iteration over a table that is still in its checkpoint file
/// gives the handles it makes (see ``EncodedScan``).
///
/// Reading a property of such a handle decodes that one value: an
/// iteration reading one integer of each object decodes no string and
/// allocates no record. Making the block checked its checksum and its keys
/// (``CheckpointTable/encodedBlock(from:)``); each value is checked when it
/// is decoded (``CheckpointTable/value(in:property:)``), and one that fails
/// is not returned: the reader then reads the object the slow way, which
/// finds the damage and rebuilds the table from the journal.
///
/// Immutable; it keeps its table, and so the mapped file, alive.
///
/// - Complexity: ``value(forKey:property:)`` O(1) where keys have no gaps,
///   else O(log block size), plus stepping over the values before the
///   property's.
final class EncodedBlock: Sendable {
    /// Where an object's values are in the file.
    struct Entry: Sendable {
        let key: Int64
        let start: Int
        let count: Int
    }

    /// The objects, in ascending key order; at least one.
    let objects: [Entry]
    /// Whether no object of the table comes after these: a scan then ends
    /// without asking for more (which, the read budget spent, would build
    /// the table for nothing).
    let isLast: Bool
    private let table: CheckpointTable
    private let file: MappedFile

    init(objects: [Entry], isLast: Bool, table: CheckpointTable, file: MappedFile) {
        self.objects = objects
        self.isLast = isLast
        self.table = table
        self.file = file
    }

    /// The value of `property` (an index in the table's schema) of object
    /// `key`; `nil` if the block does not hold the object or the value does
    /// not decode or fit the property.
    ///
    /// With `loadingPastTheObject` `false` (for tests), the read loads no
    /// byte past the object's, as it must where the file ends right after
    /// them.
    func value(forKey key: Int64, property: Int, loadingPastTheObject: Bool = true) -> PersistedValue? {
        var cursor = CheckpointTable.EncodedCursor.start
        guard let place = place(forKey: key, loadingPastTheObject: loadingPastTheObject) else { return nil }
        return read(at: place, property: property, cursor: &cursor).value
    }

    /// Where one object's values lie in the mapped file: found once per
    /// handle (``place(forKey:)``), so that each read of a property goes
    /// straight to the bytes. Valid while the block is alive (it keeps the
    /// file mapped).
    struct Place {
        /// The object's first byte.
        let start: UnsafeRawPointer
        /// The object's bytes.
        let count: Int
        /// How many bytes from `start` may be loaded: to the file's end (a
        /// short value at the object's end is then read with one word
        /// load, the bytes past the object masked off).
        let readable: Int
    }

    /// Where the values of ``objects``' element `position` are.
    ///
    /// - Complexity: O(1).
    @inline(__always)
    func place(at position: Int) -> Place {
        let object = objects[position], bytes = file.bytes
        return Place(start: bytes.baseAddress.unsafelyUnwrapped + object.start, count: object.count,
                     readable: bytes.count &- object.start)
    }

    /// Where object `key`'s values are; `nil` if the block does not hold it.
    ///
    /// - Complexity: O(1) where keys have no gaps, else O(log block size).
    @inline(__always)
    func place(forKey key: Int64) -> Place? {
        place(forKey: key, loadingPastTheObject: true)
    }

    /// With `loadingPastTheObject` `false` (for tests), no byte past the
    /// object's may be loaded: as where the file ends right after them.
    @inline(__always)
    private func place(forKey key: Int64, loadingPastTheObject: Bool) -> Place? {
        guard let position = position(of: key) else { return nil }
        // The block's reader checked that the object's bytes are in the
        // file; the file's bytes after them may be loaded too (and masked).
        let place = place(at: position)
        return loadingPastTheObject ? place : Place(start: place.start, count: place.count, readable: place.count)
    }

    /// The value of `property` of the object at `place` (which must be
    /// this block's), as ``CheckpointTable/read(in:readable:property:cursor:)``
    /// answers it: a plain integer or short string as a record's slot holds
    /// it; `.unreadable` once the table is built. Starts where `cursor`
    /// says the reads of this object got to, and moves it on; `cursor` must
    /// have been made by reads of this object.
    ///
    /// - Complexity: O(1) for the property after the last one read; else
    ///   O(values stepped over).
    @inline(__always)
    func read(at place: Place, property: Int, cursor: inout CheckpointTable.EncodedCursor) -> CheckpointTable.EncodedRead {
        // Once the table is built (damage found, perhaps in this block),
        // reads answer from it.
        guard !table.isBuilt else { return .unreadable }
        return table.read(in: UnsafeRawBufferPointer(start: place.start, count: place.count), readable: place.readable,
                          property: property, cursor: &cursor)
    }

    /// Where object `key` is in ``objects``.
    @inline(__always)
    private func position(of key: Int64) -> Int? {
        // Keys counted up without gaps (nothing deleted) are where their
        // distance from the first puts them: no search.
        let guess = Int(truncatingIfNeeded: key &- objects[0].key)
        if guess >= 0, guess < objects.count, objects[guess].key == key { return guess }
        return search(for: key)
    }

    /// ``position(of:)`` where keys have gaps: a binary search.
    @inline(never)
    private func search(for key: Int64) -> Int? {
        var low = 0, high = objects.count
        while low < high {
            let middle = (low + high) / 2
            if objects[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low < objects.count && objects[low].key == key ? low : nil
    }
}
