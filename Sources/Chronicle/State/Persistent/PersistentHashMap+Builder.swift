extension PersistentHashMap {
    /// Builds a map of `entries` in one pass over them sorted into trie
    /// order, allocating each node once, where inserting them one by one
    /// would walk from the root and grow (and copy) a node array per entry.
    ///
    /// The trie is the one the inserts would make: an entry sits inline at
    /// the first level where no other entry shares its slot, entries that
    /// share a whole hash sit in a collision node below the last level.
    ///
    /// - Returns: the map, or, if two entries have equal keys, the
    ///   positions in `entries` of such a pair (the lower first) instead.
    /// - Complexity: O(n log n) for the sort, O(n) for the rest.
    static func building(from entries: ContiguousArray<Node.Entry>) -> Result<PersistentHashMap, DuplicateKeys> {
        guard !entries.isEmpty else { return .success(PersistentHashMap()) }
        let hashes = entries.map { hash($0.key) }
        // Sorting by the hash's 6-bit digits taken lowest first puts every
        // subtree's entries in one run, in slot order; equal hashes end up
        // next to each other, by position.
        var order = hashes.indices.map { (trieOrder(hashes[$0]), $0) }
        order.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
        var runStart = 0
        while runStart < order.count {
            var runEnd = runStart + 1
            while runEnd < order.count, order[runEnd].0 == order[runStart].0 { runEnd += 1 }
            for first in runStart..<runEnd {
                for second in (first + 1)..<runEnd where entries[order[first].1].key == entries[order[second].1].key {
                    return .failure(DuplicateKeys(first: order[first].1, second: order[second].1))
                }
            }
            runStart = runEnd
        }
        let sorted = order.map(\.1)
        let root = sorted.withUnsafeBufferPointer { sorted in
            hashes.withUnsafeBufferPointer { hashes in
                node(entries, hashes, sorted, 0..<sorted.count, shift: 0)
            }
        }
        return .success(PersistentHashMap(root: root, count: entries.count))
    }

    /// Two entries given to ``building(from:)`` with equal keys, by position.
    struct DuplicateKeys: Error {
        var first: Int
        var second: Int
    }

    /// The hash's 6-bit digits (as ``Bitmap/digit(_:_:)`` reads them, lowest
    /// first) reversed into most-significant-first order; the top level's
    /// four bits come last.
    private static func trieOrder(_ hash: UInt64) -> UInt64 {
        var result: UInt64 = 0
        for level in 0..<10 {
            result |= UInt64(Bitmap.digit(hash, level * Bitmap.bitsPerLevel)) << UInt64(58 - level * Bitmap.bitsPerLevel)
        }
        return result | hash >> 60
    }

    /// The node for the entries `sorted[range]`, which share their hash
    /// digits below `shift`.
    private static func node(_ entries: ContiguousArray<Node.Entry>, _ hashes: UnsafeBufferPointer<UInt64>,
                             _ sorted: UnsafeBufferPointer<Int>, _ range: Range<Int>, shift: Int) -> Node {
        if shift >= 64 { return Node(entries: ContiguousArray(range.map { entries[sorted[$0]] })) }
        let node = Node()
        var start = range.lowerBound
        while start < range.upperBound {
            let digit = Bitmap.digit(hashes[sorted[start]], shift)
            var end = start + 1
            while end < range.upperBound, Bitmap.digit(hashes[sorted[end]], shift) == digit { end += 1 }
            if end - start == 1 {
                node.dataMap |= Bitmap.bit(digit)
                node.entries.append(entries[sorted[start]])
            } else {
                node.nodeMap |= Bitmap.bit(digit)
                node.children.append(Self.node(entries, hashes, sorted, start..<end, shift: shift + Bitmap.bitsPerLevel))
            }
            start = end
        }
        return node
    }
}
