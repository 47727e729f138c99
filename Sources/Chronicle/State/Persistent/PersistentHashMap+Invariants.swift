extension PersistentHashMap {
    /// Traps unless the trie is well formed: bitmaps disjoint and matching
    /// their arrays, every entry placed by its hash, every node below the root
    /// holding at least two entries and no lone entry left un-inlined,
    /// collision nodes only below the last level, and `count` right. O(n).
    func _checkInvariants() {
        guard let root else {
            precondition(count == 0, "empty map with count \(count)")
            return
        }
        func visit(_ node: Node, shift: Int, prefix: UInt64, isRoot: Bool) -> Int {
            let lowMask: UInt64 = shift >= 64 ? .max : Bitmap.below(shift)
            for entry in node.entries {
                precondition(Self.hash(entry.key) & lowMask == prefix, "entry off its hash path")
            }
            if shift >= 64 {
                precondition(node.dataMap == 0 && node.nodeMap == 0 && node.children.isEmpty, "collision node shape")
                precondition(node.entries.count >= 2, "collision node with \(node.entries.count) entries")
                precondition(Set(node.entries.map { $0.key }).count == node.entries.count, "duplicate keys")
                return node.entries.count
            }
            precondition(node.dataMap & node.nodeMap == 0, "slot both entry and child")
            precondition(node.dataMap.nonzeroBitCount == node.entries.count, "dataMap popcount")
            precondition(node.nodeMap.nonzeroBitCount == node.children.count, "nodeMap popcount")
            var slots = node.dataMap
            for entry in node.entries {
                let digit = slots.trailingZeroBitCount
                slots &= slots &- 1
                precondition(Bitmap.digit(Self.hash(entry.key), shift) == digit, "entry in wrong slot")
            }
            var total = node.entries.count
            slots = node.nodeMap
            for child in node.children {
                let digit = slots.trailingZeroBitCount
                slots &= slots &- 1
                let below = visit(child, shift: shift + Bitmap.bitsPerLevel,
                                  prefix: prefix | UInt64(digit) << UInt64(shift), isRoot: false)
                precondition(below >= 2, "child subtree with \(below) entries")
                total += below
            }
            if !isRoot { precondition(total >= 2, "non-root node with \(total) entries") }
            return total
        }
        let total = visit(root, shift: 0, prefix: 0, isRoot: true)
        precondition(total == count && total > 0, "count \(count) but \(total) entries")
    }

    /// The identities of every node, to check how much two versions share.
    func _nodeIdentities() -> Set<ObjectIdentifier> { root?._subtreeIdentities() ?? [] }
}
