extension PersistentIntMap {
    /// Builds a map from keys given in ascending order, node by node: each
    /// leaf is filled and closed once, then hung under its parent, so
    /// loading n sorted entries (a checkpoint's objects, an index made from
    /// them) allocates each node once instead of walking and path-copying
    /// from the root for every key as n ``updateValue(_:forKey:)`` calls do.
    ///
    /// The result is the same trie the inserts would make (same shape,
    /// shift and count), so every other operation treats it alike.
    ///
    /// - Complexity: ``append(_:forKey:)`` amortised O(1); ``build()``
    ///   O(log64 n). O(n) in all, and O(64 × depth) extra memory.
    struct Builder {
        /// The values of the leaf being filled, and which of its slots they
        /// occupy. One array for every leaf: a leaf copies its values into
        /// its own block.
        private var leafValues = ContiguousArray<Value>()
        private var leafBitmap: UInt64 = 0
        /// The inner nodes being filled: `inner[i]` is at shift `6 × (i + 1)`.
        private var inner: [(bitmap: UInt64, children: ContiguousArray<Node>)] = []
        /// The last key appended, or -1.
        private(set) var lastKey: Int64 = -1
        /// The number of keys appended. O(1).
        private(set) var count = 0

        /// A builder with nothing appended yet.
        init() {}

        /// Adds `value` under `key`.
        ///
        /// - Precondition: `key` is greater than every key appended before
        ///   (so non-negative).
        mutating func append(_ value: Value, forKey key: Int64) {
            precondition(key > lastKey, "PersistentIntMap.Builder: keys must ascend")
            if count > 0, key >> Int64(Bitmap.bitsPerLevel) != lastKey >> Int64(Bitmap.bitsPerLevel) {
                closeNodes(below: key)
            }
            leafBitmap |= Bitmap.bit(Bitmap.digit(UInt64(key), 0))
            leafValues.append(value)
            lastKey = key
            count += 1
        }

        /// The map of everything appended. O(log64 n).
        consuming func build() -> PersistentIntMap {
            guard count > 0 else { return PersistentIntMap() }
            // The root is the lowest level that covers the largest key, as
            // inserting would have grown it (and removing would shrink it).
            var rootLevel = 0
            while !PersistentIntMap.covers(lastKey, shift: rootLevel * Bitmap.bitsPerLevel) { rootLevel += 1 }
            var node = closeLeaf()
            for level in 0..<rootLevel {
                hang(node, at: level, digit: Bitmap.digit(UInt64(lastKey), (level + 1) * Bitmap.bitsPerLevel))
                node = closeInner(level)
            }
            return PersistentIntMap(root: node, shift: rootLevel * Bitmap.bitsPerLevel, count: count, largestKey: lastKey)
        }

        /// Closes the leaf of `lastKey` and every inner node above it that
        /// `key` does not share, hanging each under its parent.
        private mutating func closeNodes(below key: Int64) {
            var node = closeLeaf()
            var level = 0
            while true {
                let parentShift = (level + 1) * Bitmap.bitsPerLevel
                hang(node, at: level, digit: Bitmap.digit(UInt64(lastKey), parentShift))
                let above = Int64(parentShift + Bitmap.bitsPerLevel)
                // The parent stays open while `key` falls under it too.
                if above >= 64 || key >> above == lastKey >> above { return }
                node = closeInner(level)
                level += 1
            }
        }

        /// Hangs `child` in slot `digit` of the open inner node at `level` (shift `6 × (level + 1)`).
        private mutating func hang(_ child: Node, at level: Int, digit: Int) {
            while inner.count <= level { inner.append((0, [])) }
            inner[level].bitmap |= Bitmap.bit(digit)
            inner[level].children.append(child)
        }

        private mutating func closeLeaf() -> Node {
            let node = Node.leaf(bitmap: leafBitmap, values: leafValues)
            leafValues.removeAll(keepingCapacity: true)
            leafBitmap = 0
            return node
        }

        private mutating func closeInner(_ level: Int) -> Node {
            let node = Node.inner(bitmap: inner[level].bitmap, children: Self.fitted(&inner[level].children))
            inner[level].bitmap = 0
            return node
        }

        /// Takes `array`'s elements, leaving it empty. A full (or nearly
        /// full) array is handed over as it is; a sparse one is copied to
        /// its size, so a trie of scattered keys does not keep 64 slots a node.
        private static func fitted<Element>(_ array: inout ContiguousArray<Element>) -> ContiguousArray<Element> {
            var taken = ContiguousArray<Element>()
            swap(&taken, &array)
            if taken.count * 4 >= taken.capacity * 3 { return taken }
            return ContiguousArray(unsafeUninitializedCapacity: taken.count) { buffer, initialized in
                initialized = buffer.initialize(fromContentsOf: taken)
            }
        }
    }
}
