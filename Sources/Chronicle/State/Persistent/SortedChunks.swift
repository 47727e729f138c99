/// A sorted multiset with value semantics whose edits cost O(chunk + n /
/// chunk), not O(n): the elements live in ascending order in shared chunks
/// of at most ``maximumChunk`` elements.
///
/// The fold keeps one per indexed value (the keys of the objects holding it)
/// and one per link target (the links into it). A flat array there made every
/// edit copy the whole list the first time a state version touched it, and
/// shift half of it on an insert: with 1M objects over 100 index values, 10k
/// keys moved per created object. Here an edit copies the chunk directory
/// (when another state version shares it) and one chunk.
///
/// Equal elements may repeat (an object listed twice in a list links twice);
/// ``insert(_:)`` puts a new one after its equals.
///
/// - Complexity: `insert` and `remove` O(log n + maximumChunk + n /
///   maximumChunk) at worst, amortised O(log n) on a chunk directory and
///   chunk this copy already owns; `count` O(1); iteration O(n).
struct SortedChunks<Element: Comparable> {
    /// One run of elements. Written only while uniquely referenced, like the
    /// tries' nodes.
    final class Chunk {
        // No dynamic exclusivity checks: a chunk is written only while
        // uniquely referenced, so no read can overlap a write.
        @exclusivity(unchecked) var elements: ContiguousArray<Element>
        init(_ elements: ContiguousArray<Element>) { self.elements = elements }
    }

    /// The largest chunk; a chunk that grows past it splits in two.
    static var maximumChunk: Int { 128 }

    /// The chunks, in order; none is empty.
    private(set) var chunks: ContiguousArray<Chunk> = []
    /// The number of elements. O(1).
    private(set) var count = 0

    /// An empty multiset.
    init() {}

    /// The elements of `sorted`, which must be in ascending order.
    init<S: Sequence>(sorted: S) where S.Element == Element {
        for element in sorted { append(element) }
    }

    /// The elements of `ascending`, which must be in ascending order, cut
    /// into full chunks as appending them one by one would, but copied once
    /// per chunk instead of checked and appended per element.
    ///
    /// - Complexity: O(n).
    init(ascending: some RandomAccessCollection<Element>) {
        var start = ascending.startIndex
        chunks.reserveCapacity((ascending.count + Self.maximumChunk - 1) / Self.maximumChunk)
        while start != ascending.endIndex {
            let end = ascending.index(start, offsetBy: Self.maximumChunk, limitedBy: ascending.endIndex) ?? ascending.endIndex
            chunks.append(Chunk(ContiguousArray(ascending[start..<end])))
            start = end
        }
        count = ascending.count
    }

    /// Whether there are no elements. O(1).
    var isEmpty: Bool { count == 0 }

    /// The position of the chunk where `element` belongs: the first whose
    /// last element is not less than it, or the last chunk. O(log chunks).
    private func chunkIndex(for element: Element) -> Int {
        // Keys mostly arrive in ascending order: try the last chunk first.
        let lastChunk = chunks[chunks.count - 1].elements
        if let first = lastChunk.first, !(element < first) { return chunks.count - 1 }
        var low = 0
        var high = chunks.count - 1
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].elements[chunks[middle].elements.count - 1] < element { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Makes chunk `index` writable by this copy alone.
    private mutating func ownChunk(_ index: Int) {
        if !isKnownUniquelyReferenced(&chunks[index]) { chunks[index] = Chunk(chunks[index].elements) }
    }

    /// Adds `element` after any equal elements.
    mutating func insert(_ element: Element) {
        guard !chunks.isEmpty else {
            chunks.append(Chunk([element]))
            count = 1
            return
        }
        if !(element < lastElement) {
            // Not below the last element (keys mostly arrive in ascending
            // order): append, with no binary search and nothing to shift.
            // A full last chunk gets a new one after it rather than two
            // half-full ones.
            append(element)
            return
        }
        let index = chunkIndex(for: element)
        ownChunk(index)
        let chunk = chunks[index]
        chunk.elements.insert(element, at: chunk.elements.insertionPoint(after: element))
        count += 1
        if chunk.elements.count > Self.maximumChunk {
            let half = chunk.elements.count / 2
            chunks.insert(Chunk(ContiguousArray(chunk.elements[half...])), at: index + 1)
            chunk.elements.removeSubrange(half...)
        }
    }

    /// The largest element of a non-empty collection. O(1). A getter, so
    /// that no reference to the last chunk outlives it: one would make
    /// ``append(_:)`` copy the chunk it is about to write.
    private var lastElement: Element {
        let elements = chunks[chunks.count - 1].elements
        return elements[elements.count - 1]
    }

    /// Adds `element`, which must not be less than the last element. O(1) amortised.
    private mutating func append(_ element: Element) {
        if chunks.isEmpty || chunks[chunks.count - 1].elements.count >= Self.maximumChunk {
            chunks.append(Chunk([element]))
        } else {
            ownChunk(chunks.count - 1)
            chunks[chunks.count - 1].elements.append(element)
        }
        count += 1
    }

    /// Adds `elements`, in the order given: appended a chunk at a time
    /// while they come in ascending order from at least the last element
    /// (a fold's new keys do), one by one with ``insert(_:)`` from the
    /// first that does not.
    ///
    /// - Complexity: O(k) for k elements appended, plus ``insert(_:)``'s
    ///   for each of the rest.
    mutating func insert<C: RandomAccessCollection>(contentsOf elements: C) where C.Element == Element, C.Index == Int {
        var index = elements.startIndex
        while index < elements.endIndex {
            let element = elements[index]
            guard chunks.isEmpty || !(element < lastElement) else { break }
            if chunks.isEmpty || chunks[chunks.count - 1].elements.count >= Self.maximumChunk {
                chunks.append(Chunk([element]))
                count += 1
                index += 1
                continue
            }
            // Fill the last chunk with the ascending run that follows,
            // found first and then copied at once.
            ownChunk(chunks.count - 1)
            let chunk = chunks[chunks.count - 1]
            let room = Self.maximumChunk - chunk.elements.count
            var end = index + 1
            var last = element
            while end < elements.endIndex, end - index < room, !(elements[end] < last) {
                last = elements[end]
                end += 1
            }
            chunk.elements.append(contentsOf: elements[index..<end])
            count += end - index
            index = end
        }
        while index < elements.endIndex {
            insert(elements[index])
            index += 1
        }
    }

    /// Removes one element equal to `element`; returns whether there was one.
    @discardableResult
    mutating func remove(_ element: Element) -> Bool {
        guard !chunks.isEmpty else { return false }
        let index = chunkIndex(for: element)
        let position = chunks[index].elements.insertionPoint(of: element)
        guard position < chunks[index].elements.count, chunks[index].elements[position] == element else { return false }
        count -= 1
        if chunks[index].elements.count == 1 {
            chunks.remove(at: index)
            return true
        }
        ownChunk(index)
        chunks[index].elements.remove(at: position)
        return true
    }

    /// The elements as one array. O(n).
    var elements: [Element] {
        var result: [Element] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk.elements) }
        return result
    }
}

extension SortedChunks: Sequence {
    /// Iterates the elements in ascending order.
    struct Iterator: IteratorProtocol {
        private let chunks: ContiguousArray<Chunk>
        private var chunk = 0
        private var position = 0

        fileprivate init(_ chunks: ContiguousArray<Chunk>) { self.chunks = chunks }

        mutating func next() -> Element? {
            while chunk < chunks.count {
                let elements = chunks[chunk].elements
                if position < elements.count {
                    defer { position += 1 }
                    return elements[position]
                }
                chunk += 1
                position = 0
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(chunks) }

    var underestimatedCount: Int { count }
}

extension SortedChunks: Equatable {
    /// Equal when they hold the same elements in the same order, however chunked. O(n).
    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension SortedChunks {
    /// Traps unless the chunks are non-empty, within size, in ascending order
    /// across chunk boundaries, and add up to ``count``. O(n).
    func _checkInvariants() {
        var total = 0
        var previous: Element?
        for chunk in chunks {
            precondition(!chunk.elements.isEmpty, "SortedChunks: empty chunk")
            precondition(chunk.elements.count <= Self.maximumChunk, "SortedChunks: oversized chunk")
            for element in chunk.elements {
                if let previous { precondition(!(element < previous), "SortedChunks: out of order") }
                previous = element
            }
            total += chunk.elements.count
        }
        precondition(total == count, "SortedChunks: count \(count), elements \(total)")
    }
}

// Safe: chunks are written only while uniquely referenced (`ownChunk`), so
// chunks reachable from two copies — possibly on two threads — are immutable.
extension SortedChunks: @unchecked Sendable where Element: Sendable {}
