extension PersistentIntMap {
    /// Calls `body` with each leaf that holds keys `>= start`, in ascending
    /// key order, until it returns `false`: the leaf's key base (its low six
    /// bits zero), its bitmap with the slots below `start` cleared, and the
    /// values of the slots left, in slot order (the *i*-th set bit's value
    /// is `values[i]`).
    ///
    /// For loops that read every element: one call per 64 elements, and
    /// the values lent in place (``Iterator`` keeps a frame stack and
    /// returns each element as an optional tuple). `body` must not keep
    /// the buffer.
    ///
    /// - Complexity: O(n / 64) calls for n elements, plus O(log64 n) to start.
    func forEachLeaf(from start: Int64,
                     _ body: (_ base: Int64, _ bits: UInt64, _ values: UnsafeBufferPointer<Value>) -> Bool) {
        guard let root, Self.covers(start, shift: shift) else { return }
        _ = Self.visitLeaves(root, shift: shift, base: 0, from: Swift.max(start, 0), body)
    }

    /// Visits the leaves of `node` (covering keys from `base`) with keys `>= start`.
    private static func visitLeaves(_ node: Node, shift: Int, base: Int64, from start: Int64,
                                    _ body: (Int64, UInt64, UnsafeBufferPointer<Value>) -> Bool) -> Bool {
        // Slots wholly below `start` are skipped; the one containing it is
        // entered (at a leaf: its lower keys are masked off).
        let low: UInt64 = start > base ? Bitmap.below(Bitmap.digit(UInt64(start), shift)) : 0
        if shift == 0 {
            let skipped = (node.bitmap & low).nonzeroBitCount
            return node.withValues {
                body(base, node.bitmap & ~low, UnsafeBufferPointer(rebasing: $0[skipped...]))
            }
        }
        return node.children.withUnsafeBufferPointer { children in
            var bits = node.bitmap & ~low
            var position = (node.bitmap & low).nonzeroBitCount
            while bits != 0 {
                let digit = bits.trailingZeroBitCount
                bits &= bits &- 1
                let childBase = base | Int64(digit) << Int64(shift)
                guard visitLeaves(children[position], shift: shift - Bitmap.bitsPerLevel, base: childBase,
                                  from: start, body) else { return false }
                position += 1
            }
            return true
        }
    }
}
