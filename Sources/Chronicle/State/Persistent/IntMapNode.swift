/// What an ``IntMapNode`` keeps before its values.
struct IntMapNodeHeader<Value> {
    /// Which of the node's 64 slots are occupied.
    var bitmap: UInt64
    /// An inner node's children, in slot order (empty at a leaf).
    var children: ContiguousArray<IntMapNode<Value>>
    /// How many values the node holds (a leaf: one per set bit), and has room for.
    var count: Int32, capacity: Int32
}

/// One node of a ``PersistentIntMap``: 64 slots, of which `bitmap` says
/// which are occupied. Nodes at shift 0 (leaves) hold values, the others
/// children.
///
/// A leaf keeps its values in its own block, after its header, where a
/// node holding an array of them took a second block (the node, 48 bytes
/// with the allocator's share, for every 64 objects of a table). A leaf
/// that needs more room than it has is replaced by a larger copy
/// (``withRoom(for:)``); the map's edits reach every node through its
/// parent's slot, so they can.
///
/// Nodes are mutated only while uniquely referenced (the map checks
/// `isKnownUniquelyReferenced` first and copies otherwise), so a node that
/// two maps share is never written again. The header is read and written
/// through its pointer: the `header` property checks exclusivity at run
/// time, a call on every step of a lookup.
final class IntMapNode<Value>: ManagedBuffer<IntMapNodeHeader<Value>, Value> {
    /// A node with `children` and room for at least `capacity` values
    /// (as many as its block holds), holding none yet.
    @inline(__always)
    private static func make(bitmap: UInt64, children: ContiguousArray<IntMapNode>, capacity: Int) -> IntMapNode {
        let node = unsafeDowncast(create(minimumCapacity: capacity) { _ in
            IntMapNodeHeader(bitmap: bitmap, children: children, count: 0, capacity: 0)
        }, to: IntMapNode.self)
        if capacity > 0 {
            let room = Int32(truncatingIfNeeded: Swift.min(node.capacity, 64))
            node.withUnsafeMutablePointerToHeader { $0.pointee.capacity = room }
        }
        return node
    }

    /// An inner node of `children`.
    static func inner(bitmap: UInt64, children: ContiguousArray<IntMapNode>) -> IntMapNode {
        make(bitmap: bitmap, children: children, capacity: 0)
    }

    /// A leaf of `values`, one per set bit of `bitmap`, with room for
    /// `room` more.
    static func leaf<C: Collection<Value>>(bitmap: UInt64, values: C, room: Int = 0) -> IntMapNode {
        let node = make(bitmap: bitmap, children: [], capacity: values.count &+ room)
        node.withUnsafeMutablePointers { header, elements in
            var index = 0
            for value in values {
                (elements + index).initialize(to: value)
                index &+= 1
            }
            header.pointee.count = Int32(truncatingIfNeeded: index)
        }
        return node
    }

    deinit {
        withUnsafeMutablePointers { header, values in
            let count = Int(header.pointee.count)
            // A deinit is not specialised: `deinitialize(count:)` destroys
            // through the runtime's generic witnesses, an indirect call per
            // value. A leaf of records — released whole by every commit
            // that replaced one of them, and by every store closed — is
            // released by a loop compiled for them.
            guard Value.self == ObjectRecord.self else { values.deinitialize(count: count); return }
            let records = UnsafeMutableRawPointer(values).assumingMemoryBound(to: ObjectRecord.self)
            for index in 0..<count { _ = (records + index).move() }
        }
    }

    /// Which slots are occupied.
    var bitmap: UInt64 {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.bitmap } }
        @inline(__always) set { withUnsafeMutablePointerToHeader { $0.pointee.bitmap = newValue } }
    }

    /// An inner node's children, in slot order; empty at a leaf.
    var children: ContiguousArray<IntMapNode> {
        @inline(__always) get { withUnsafeMutablePointerToHeader { $0.pointee.children } }
        @inline(__always) _modify {
            // The header's address, used while `self` is alive: it stays
            // where the block put it.
            let header = withUnsafeMutablePointerToHeader { $0 }
            yield &header.pointee.children
        }
    }

    /// How many values the node holds.
    var valueCount: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.count) } }

    /// The value at `position` (< ``valueCount``).
    @inline(__always)
    func value(at position: Int) -> Value {
        withUnsafeMutablePointerToElements { $0[position] }
    }

    /// Calls `body` with the values; it must not keep the buffer.
    @inline(__always)
    func withValues<R>(_ body: (UnsafeBufferPointer<Value>) throws -> R) rethrows -> R {
        try withUnsafeMutablePointers { header, values in
            try body(UnsafeBufferPointer(start: values, count: Int(header.pointee.count)))
        }
    }

    /// Calls `body` with the value at `position` to edit in place; the
    /// node must be owned.
    @inline(__always)
    func modifyValue<R>(at position: Int, _ body: (inout Value) -> R) -> R {
        withUnsafeMutablePointerToElements { body(&$0[position]) }
    }

    /// Whether `added` more values fit in this node's block.
    @inline(__always)
    func hasRoom(for added: Int) -> Bool {
        withUnsafeMutablePointerToHeader { Int($0.pointee.count) &+ added <= Int($0.pointee.capacity) }
    }

    /// This node if `added` more values fit, else a copy with room for
    /// twice its count but no more than 64 (or for what they need); the
    /// node must be owned.
    @inline(__always)
    func withRoom(for added: Int) -> IntMapNode {
        if hasRoom(for: added) { return self }
        let count = valueCount
        return copy(room: Swift.max(added, Swift.min(64, 2 &* count) &- count))
    }

    /// Appends `value` after the others; the node must be owned and have room.
    @inline(__always)
    func appendValue(_ value: Value) {
        withUnsafeMutablePointers { header, values in
            let count = Int(header.pointee.count)
            precondition(count < Int(header.pointee.capacity), "IntMapNode: no room in the leaf")
            (values + count).initialize(to: value)
            header.pointee.count += 1
        }
    }

    /// Appends `count` values, the `i`th `value(i)`; the node must be
    /// owned and have room.
    @inline(__always)
    func appendValues(count added: Int, _ value: (Int) -> Value) {
        withUnsafeMutablePointers { header, values in
            let count = Int(header.pointee.count)
            precondition(count &+ added <= Int(header.pointee.capacity), "IntMapNode: no room in the leaf")
            for offset in 0..<added { (values + count + offset).initialize(to: value(offset)) }
            header.pointee.count += Int32(truncatingIfNeeded: added)
        }
    }

    /// Inserts `value` at `position`; the node must be owned and have room.
    func insertValue(_ value: Value, at position: Int) {
        withUnsafeMutablePointers { header, values in
            let count = Int(header.pointee.count)
            precondition(count < Int(header.pointee.capacity) && position <= count, "IntMapNode: no room in the leaf")
            (values + position + 1).moveInitialize(from: values + position, count: count &- position)
            (values + position).initialize(to: value)
            header.pointee.count += 1
        }
    }

    /// Removes and returns the value at `position`; the node must be owned.
    func removeValue(at position: Int) -> Value {
        withUnsafeMutablePointers { header, values in
            let count = Int(header.pointee.count)
            precondition(position >= 0 && position < count, "IntMapNode: no value at \(position)")
            let old = (values + position).move()
            (values + position).moveInitialize(from: values + position + 1, count: count &- position &- 1)
            header.pointee.count -= 1
            return old
        }
    }

    /// A copy to write to (every caller writes to it at once): its
    /// children and values copied now, with room for one more. O(64).
    ///
    /// Copied here rather than left shared until the first write: the
    /// standard library's copy on write copies an array of references
    /// through the runtime's generic witnesses, an indirect call per
    /// element, where this loop is compiled for the element type; and an
    /// insert into a shared array copied it once more to grow it.
    func copy() -> IntMapNode {
        copy(room: valueCount > 0 ? 1 : 0)
    }

    /// A copy with room for `room` more values.
    func copy(room: Int) -> IntMapNode {
        withUnsafeMutablePointers { header, values in
            let count = Int(header.pointee.count)
            let node = IntMapNode.make(bitmap: header.pointee.bitmap, children: Self.copied(header.pointee.children),
                                       capacity: count > 0 || room > 0 ? count &+ room : 0)
            node.withUnsafeMutablePointers { target, targetValues in
                // A loop compiled for the value type, not
                // `initialize(from:count:)`: that copies through the
                // runtime's generic witnesses, an indirect call per value.
                for index in 0..<count { (targetValues + index).initialize(to: values[index]) }
                target.pointee.count = Int32(truncatingIfNeeded: count)
            }
            return node
        }
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

    /// A chain of nodes from `shift` down to the leaf holding `value` at
    /// `key`, the leaf with room for `room` more values.
    static func path(shift: Int, key: Int64, value: Value, room: Int = 0) -> IntMapNode {
        let bit = Bitmap.bit(Bitmap.digit(UInt64(key), shift))
        if shift == 0 { return leaf(bitmap: bit, values: CollectionOfOne(value), room: room) }
        return inner(bitmap: bit, children: [path(shift: shift - Bitmap.bitsPerLevel, key: key, value: value, room: room)])
    }
}
