/// What the tries' node classes have in common, for code that walks any trie.
protocol TrieNode: AnyObject {
    /// The child nodes, in slot order.
    var children: ContiguousArray<Self> { get }
}

extension TrieNode {
    /// The identities of this node and every node below it, to check how
    /// much two versions of a map share. O(nodes).
    func _subtreeIdentities() -> Set<ObjectIdentifier> {
        var result = Set<ObjectIdentifier>()
        var pending = [self]
        while let node = pending.popLast() {
            result.insert(ObjectIdentifier(node))
            pending.append(contentsOf: node.children)
        }
        return result
    }
}

extension IntMapNode: TrieNode {}
extension HashMapNode: TrieNode {}
