/// One node of a ``PersistentIntMap``: 64 slots, of which `bitmap` says
/// which are occupied. Nodes at shift 0 hold values, the others children.
///
/// Nodes are mutated only while uniquely referenced (the map checks
/// `isKnownUniquelyReferenced` first and copies otherwise), so a node that
/// two maps share is never written again.
final class IntMapNode<Value> {
    // No dynamic exclusivity checks: a node is written only while uniquely
    // referenced (see the type's doc), so no read can overlap a write.
    @exclusivity(unchecked) var bitmap: UInt64
    @exclusivity(unchecked) var children: ContiguousArray<IntMapNode<Value>>
    @exclusivity(unchecked) var values: ContiguousArray<Value>

    init(bitmap: UInt64, children: ContiguousArray<IntMapNode<Value>> = [], values: ContiguousArray<Value> = []) {
        self.bitmap = bitmap
        self.children = children
        self.values = values
    }

    /// A shallow copy: the arrays are shared until one side writes. O(1),
    /// then O(64) when the copy's array is first written.
    func copy() -> IntMapNode<Value> {
        IntMapNode(bitmap: bitmap, children: children, values: values)
    }

    /// A chain of nodes from `shift` down to the leaf holding `value` at `key`.
    static func path(shift: Int, key: Int64, value: Value) -> IntMapNode<Value> {
        let bit = Bitmap.bit(Bitmap.digit(UInt64(key), shift))
        if shift == 0 { return IntMapNode(bitmap: bit, values: [value]) }
        return IntMapNode(bitmap: bit, children: [path(shift: shift - Bitmap.bitsPerLevel, key: key, value: value)])
    }
}
