extension PersistentIntMap {
    /// Traps unless the trie is well formed: every bitmap's popcount equals
    /// its array's length, no node below the root is empty, the root is no
    /// taller than it must be, keys ascend and `count` is right. O(n).
    func _checkInvariants() {
        guard let root else {
            precondition(count == 0 && shift == 0 && lastKey == nil, "empty map with count \(count), shift \(shift), last key \(lastKey ?? -1)")
            return
        }
        precondition(shift % Bitmap.bitsPerLevel == 0 && shift <= Self.maximumShift, "bad shift \(shift)")
        precondition(shift == 0 || root.bitmap != 1, "root could shrink")
        var total = 0
        func visit(_ node: Node, shift: Int) {
            precondition(node.bitmap != 0, "empty node")
            if shift == 0 {
                precondition(node.children.isEmpty && node.valueCount == node.bitmap.nonzeroBitCount, "leaf popcount")
                total += node.valueCount
            } else {
                precondition(node.valueCount == 0 && node.children.count == node.bitmap.nonzeroBitCount, "inner popcount")
                for child in node.children { visit(child, shift: shift - Bitmap.bitsPerLevel) }
            }
        }
        visit(root, shift: shift)
        precondition(total == count, "count \(count) but \(total) values")
        var previous: Int64 = -1
        for (key, _) in self {
            precondition(key > previous, "keys out of order")
            previous = key
        }
        precondition(previous == lastKey, "lastKey")
    }

    /// The identities of every node, to check how much two versions share.
    func _nodeIdentities() -> Set<ObjectIdentifier> { root?._subtreeIdentities() ?? [] }
}
