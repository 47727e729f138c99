extension Map: RandomAccessCollection {
    /// An entry: a key and its value.
    public typealias Element = (key: String, value: Value)

    /// The position of the first entry: always 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of entries.
    public var endIndex: Int { count }
    /// The entry at `position`, in key order.
    ///
    /// - Complexity: O(*n*): each access reads the map once. Iterate, or
    ///   read `keys` or `values`, to read it once for all entries.
    public subscript(position: Int) -> (key: String, value: Value) {
        let entries = snapshot
        precondition(entries.indices.contains(position), "Chronicle: Map index \(position) is out of bounds (count \(entries.count))")
        return entries[position]
    }
    /// Iterates over one snapshot of the map, read when iteration starts.
    public func makeIterator() -> IndexingIterator<[(key: String, value: Value)]> { snapshot.makeIterator() }
}

extension Map: LiveCollection {}
