/// The objects of one table in ascending key order, produced lazily from a
/// ``StoreState``'s snapshot of the table.
///
/// - Complexity: making an iterator O(log n); each element amortised O(1).
public struct ObjectSequence: Sequence, Sendable {
    let objects: PersistentIntMap<ObjectRecord>
    let start: Int64

    /// Iterates the objects of an ``ObjectSequence``.
    public struct Iterator: IteratorProtocol {
        var base: PersistentIntMap<ObjectRecord>.Iterator

        /// The next object, or `nil` at the end.
        public mutating func next() -> (key: ObjectKey, record: ObjectRecord)? {
            base.next().map { (ObjectKey($0.key), $0.value) }
        }
    }

    /// An iterator over the objects.
    public func makeIterator() -> Iterator {
        Iterator(base: .init(root: objects.root, shift: objects.shift, from: start))
    }

    /// The number of objects, when iterating from the first. O(1).
    public var underestimatedCount: Int { start <= 0 ? objects.count : 0 }
}
