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

    /// A copy to write to (every caller writes to it at once): its arrays
    /// are copied now, with room for one more element. O(64).
    ///
    /// Copied here rather than left shared until the first write: the
    /// standard library's copy on write copies an array of references
    /// through the runtime's generic witnesses, an indirect call per
    /// element, where this loop is compiled for the element type; and an
    /// insert into a shared array copied it once more to grow it.
    func copy() -> IntMapNode<Value> {
        IntMapNode(bitmap: bitmap, children: Self.copied(children), values: Self.copied(values))
    }

    /// `array`'s elements in a buffer of their own, with room for one more.
    @inline(__always)
    private static func copied<Element>(_ array: ContiguousArray<Element>) -> ContiguousArray<Element> {
        let count = array.count
        guard count > 0 else { return [] }
        return array.withUnsafeBufferPointer { source in
            ContiguousArray(unsafeUninitializedCapacity: count + 1) { target, initialized in
                let from = source.baseAddress.unsafelyUnwrapped, to = target.baseAddress.unsafelyUnwrapped
                for index in 0..<count { (to + index).initialize(to: from[index]) }
                initialized = count
            }
        }
    }

    /// A chain of nodes from `shift` down to the leaf holding `value` at `key`.
    static func path(shift: Int, key: Int64, value: Value) -> IntMapNode<Value> {
        let bit = Bitmap.bit(Bitmap.digit(UInt64(key), shift))
        if shift == 0 { return IntMapNode(bitmap: bit, values: [value]) }
        return IntMapNode(bitmap: bit, children: [path(shift: shift - Bitmap.bitsPerLevel, key: key, value: value)])
    }
}
