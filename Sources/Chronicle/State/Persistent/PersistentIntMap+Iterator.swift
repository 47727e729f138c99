extension PersistentIntMap: Sequence {
    /// Iterates a ``PersistentIntMap`` in ascending key order, holding one
    /// frame per trie level. `next()` is amortised O(1).
    struct Iterator: IteratorProtocol {
        private struct Frame {
            let node: Node
            /// The slots still to visit (a suffix of the node's bitmap).
            var bits: UInt64
            /// The compact-array position of the lowest bit in `bits`.
            var position: Int
            let shift: Int
            /// The key bits above this level.
            let base: Int64
        }

        private var stack: [Frame] = []

        /// Starts at the first key `>= start`.
        init(root: Node?, shift: Int, from start: Int64) {
            guard let root, PersistentIntMap.covers(start, shift: shift) else { return }
            stack.reserveCapacity(shift / Bitmap.bitsPerLevel + 1)
            let start = Swift.max(start, 0)
            var node = root
            var shift = shift
            var base: Int64 = 0
            while true {
                let digit = Bitmap.digit(UInt64(start), shift)
                let present = node.bitmap & Bitmap.bit(digit) != 0
                if shift == 0 || !present {
                    // Visit every slot at or above `digit` on this level.
                    let skipped = Bitmap.below(digit)
                    stack.append(Frame(node: node, bits: node.bitmap & ~skipped,
                                       position: (node.bitmap & skipped).nonzeroBitCount, shift: shift, base: base))
                    return
                }
                // Descend into `digit`; afterwards visit the slots above it.
                let done = Bitmap.below(digit) | Bitmap.bit(digit)
                stack.append(Frame(node: node, bits: node.bitmap & ~done,
                                   position: (node.bitmap & done).nonzeroBitCount, shift: shift, base: base))
                base |= Int64(digit) << Int64(shift)
                node = node.children[Bitmap.position(node.bitmap, digit)]
                shift -= Bitmap.bitsPerLevel
            }
        }

        /// The leaf being read, outside the stack: most calls only step
        /// through it, with no frame copied in or out of the stack.
        private var leaf: Node?
        private var leafBits: UInt64 = 0
        private var leafPosition = 0
        private var leafBase: Int64 = 0

        mutating func next() -> (key: Int64, value: Value)? {
            if leafBits != 0 {
                let digit = leafBits.trailingZeroBitCount
                leafBits &= leafBits &- 1
                defer { leafPosition += 1 }
                // Through the block: no reference to the leaf is taken.
                return (leafBase | Int64(digit), leaf.unsafelyUnwrapped.value(at: leafPosition))
            }
            while var frame = stack.popLast() {
                if frame.shift == 0 {
                    leaf = frame.node
                    leafBits = frame.bits
                    leafPosition = frame.position
                    leafBase = frame.base
                    if leafBits != 0 { return next() }
                    continue
                }
                guard frame.bits != 0 else { continue }
                let digit = frame.bits.trailingZeroBitCount
                frame.bits &= frame.bits &- 1
                let position = frame.position
                frame.position += 1
                let key = frame.base | Int64(digit) << Int64(frame.shift)
                let child = frame.node.children[position]
                stack.append(frame)
                stack.append(Frame(node: child, bits: child.bitmap, position: 0,
                                   shift: frame.shift - Bitmap.bitsPerLevel, base: key))
            }
            return nil
        }
    }

    /// The elements in ascending key order.
    func makeIterator() -> Iterator { Iterator(root: root, shift: shift, from: 0) }

    var underestimatedCount: Int { count }

    /// The elements whose keys are `>= start`, in ascending key order.
    ///
    /// - Complexity: O(log64 n) to start, then amortised O(1) per element.
    func elements(from start: Int64) -> Suffix { Suffix(map: self, start: start) }

    /// The elements of a map from a starting key on; see ``elements(from:)``.
    struct Suffix: Sequence {
        let map: PersistentIntMap
        let start: Int64
        func makeIterator() -> Iterator { Iterator(root: map.root, shift: map.shift, from: start) }
    }
}
