extension PersistentHashMap: Sequence {
    /// Iterates a ``PersistentHashMap`` depth first, in unspecified order.
    /// `next()` is amortised O(1).
    struct Iterator: IteratorProtocol {
        private var stack: [(node: Node, entry: Int, child: Int)] = []

        init(root: Node?) {
            if let root { stack.append((root, 0, 0)) }
        }

        mutating func next() -> (key: Key, value: Value)? {
            while let top = stack.last {
                if top.entry < top.node.entries.count {
                    stack[stack.count - 1].entry += 1
                    return top.node.entries[top.entry]
                }
                if top.child < top.node.children.count {
                    stack[stack.count - 1].child += 1
                    stack.append((top.node.children[top.child], 0, 0))
                    continue
                }
                stack.removeLast()
            }
            return nil
        }
    }

    /// The entries in unspecified order.
    func makeIterator() -> Iterator { Iterator(root: root) }

    var underestimatedCount: Int { count }
}
