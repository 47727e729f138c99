/// One node of a ``PersistentHashMap`` (CHAMP layout): `dataMap` marks the
/// slots holding an entry inline, `nodeMap` the slots holding a child. A node
/// below the last hash level (shift ≥ 64) is a collision node: only
/// `entries`, all with the same hash.
///
/// Like ``IntMapNode``, a node is written only while uniquely referenced.
final class HashMapNode<Key: Hashable, Value> {
    typealias Entry = (key: Key, value: Value)

    // No dynamic exclusivity checks: a node is written only while uniquely
    // referenced (see the type's doc), so no read can overlap a write.
    @exclusivity(unchecked) var dataMap: UInt64
    @exclusivity(unchecked) var nodeMap: UInt64
    @exclusivity(unchecked) var entries: ContiguousArray<Entry>
    @exclusivity(unchecked) var children: ContiguousArray<HashMapNode<Key, Value>>

    init(dataMap: UInt64 = 0, nodeMap: UInt64 = 0, entries: ContiguousArray<Entry> = [],
         children: ContiguousArray<HashMapNode<Key, Value>> = []) {
        self.dataMap = dataMap
        self.nodeMap = nodeMap
        self.entries = entries
        self.children = children
    }

    /// A shallow copy; arrays are shared until written.
    func copy() -> HashMapNode<Key, Value> {
        HashMapNode(dataMap: dataMap, nodeMap: nodeMap, entries: entries, children: children)
    }

    /// The number of entries below this node. O(size of the subtree).
    var subtreeCount: Int { children.reduce(entries.count) { $0 + $1.subtreeCount } }

    /// The smallest subtree holding two entries with different keys, from `shift` on.
    static func merge(_ first: Entry, _ firstHash: UInt64, _ second: Entry, _ secondHash: UInt64,
                      shift: Int) -> HashMapNode<Key, Value> {
        if shift >= 64 { return HashMapNode(entries: [first, second]) }
        let a = Bitmap.digit(firstHash, shift)
        let b = Bitmap.digit(secondHash, shift)
        if a == b {
            let child = merge(first, firstHash, second, secondHash, shift: shift + Bitmap.bitsPerLevel)
            return HashMapNode(nodeMap: Bitmap.bit(a), children: [child])
        }
        return HashMapNode(dataMap: Bitmap.bit(a) | Bitmap.bit(b), entries: a < b ? [first, second] : [second, first])
    }
}
