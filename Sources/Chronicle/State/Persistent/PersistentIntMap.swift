/// An ordered map from non-negative `Int64` keys to values, with value
/// semantics and cheap copies: a bitmap-compressed 64-way radix trie.
///
/// Keys are split into 6-bit digits, most significant first, so iteration is
/// in ascending key order. The root's `shift` grows as larger keys arrive;
/// sequential keys from 1 give a trie of depth ⌈log64 n⌉.
///
/// Copying a map is O(1). A mutation copies only the nodes on the path to the
/// key that are shared with another copy — O(depth × 64) memory in the worst
/// case — and writes in place where the nodes are uniquely referenced, so
/// many edits to one fresh copy copy each node once.
///
/// - Complexity: lookup, insertion, update and removal O(log64 n); `count`
///   O(1); iterating all elements O(n).
struct PersistentIntMap<Value> {
    typealias Node = IntMapNode<Value>

    /// The root node, `nil` when the map is empty.
    var root: Node?
    /// The shift of the root level: the root covers keys below `1 << (shift + 6)`.
    var shift: Int
    /// The number of keys. O(1).
    private(set) var count: Int
    /// The largest key, or −1 when empty: a key above it takes the append
    /// path (see ``append(_:forKey:)``), which ids counted up — object keys,
    /// integer primary keys — always do.
    private var largest: Int64

    /// The largest useful shift: 60 covers every non-negative `Int64`.
    static var maximumShift: Int { 60 }

    /// An empty map.
    init() {
        root = nil
        shift = 0
        count = 0
        largest = -1
    }

    /// A map of a trie built elsewhere (``Builder``), which must be well
    /// formed: `count` keys under `root`, the largest `largestKey`, and a
    /// root shift that is the smallest that covers it.
    init(root: Node, shift: Int, count: Int, largestKey: Int64) {
        self.root = root
        self.shift = shift
        self.count = count
        largest = largestKey
    }

    /// Whether the map holds no keys. O(1).
    var isEmpty: Bool { count == 0 }

    /// Whether a root at `shift` can hold `key`.
    static func covers(_ key: Int64, shift: Int) -> Bool {
        shift >= maximumShift || key < Int64(1) << Int64(shift + Bitmap.bitsPerLevel)
    }

    /// The value for `key`, or `nil`. Setting `nil` removes the key.
    ///
    /// - Complexity: O(log64 n).
    subscript(key: Int64) -> Value? {
        get {
            // Above the largest key (a new id being checked before it is
            // inserted, the usual miss): answered without a walk. Empty
            // maps have no largest key (−1), and the root covers it.
            guard key >= 0, key <= largest else { return nil }
            // Unowned: the map holds every node on the path for the whole
            // walk, and counting references on the way down was a large
            // part of a lookup's cost.
            unowned(unsafe) var node = root.unsafelyUnwrapped
            var shift = self.shift
            let bits = UInt64(key)
            while true {
                let digit = Bitmap.digit(bits, shift)
                guard node.bitmap & Bitmap.bit(digit) != 0 else { return nil }
                let position = Bitmap.position(node.bitmap, digit)
                // A leaf's value comes straight from its block. The step to
                // a child goes through the children array's buffer: the
                // array's subscript would retain the node and the child.
                if shift == 0 { return node.value(at: position) }
                node = node.children.withUnsafeBufferPointer { Unmanaged.passUnretained($0[position]) }
                    .takeUnretainedValue()
                shift -= Bitmap.bitsPerLevel
            }
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Whether `key` is in the map. O(log64 n).
    func contains(_ key: Int64) -> Bool { self[key] != nil }

    /// Sets the value for `key`, returning the value it replaced.
    ///
    /// - Precondition: `key >= 0`.
    /// - Complexity: O(log64 n); copies at most one node per level.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: Int64) -> Value? {
        updateValue(value, forKey: key, newLeafRoom: 0)
    }

    /// ``updateValue(_:forKey:)``, giving a leaf it creates room for
    /// `newLeafRoom` more values.
    @discardableResult
    private mutating func updateValue(_ value: Value, forKey key: Int64, newLeafRoom: Int) -> Value? {
        precondition(key >= 0, "PersistentIntMap keys are non-negative")
        guard root != nil else {
            while !Self.covers(key, shift: shift) { shift += Bitmap.bitsPerLevel }
            root = Node.path(shift: shift, key: key, value: value, room: newLeafRoom)
            count = 1
            largest = key
            return nil
        }
        while !Self.covers(key, shift: shift) {
            root = Node.inner(bitmap: 1, children: [root!])
            shift += Bitmap.bitsPerLevel
        }
        if key > largest {
            Self.append(&root!, shift: shift, key: key, value: value, newLeafRoom: newLeafRoom)
            largest = key
            count += 1
            return nil
        }
        let old = Self.update(&root!, shift: shift, key: key, value: value)
        if old == nil { count += 1 }
        return old
    }

    /// Inserts `count` keys with their values — the `i`th is `key(i)` with
    /// `value(i)` — each key larger than the one before it and than every
    /// key in the map: what a run of objects created with ids counted up
    /// adds to their table.
    ///
    /// The same as calling ``updateValue(_:forKey:)`` for each in order,
    /// but a key in the same leaf as the one before it (the next id, most
    /// often) goes straight into that leaf: the walk from the root, and its
    /// test of each node's uniqueness on the way, are paid once per leaf.
    ///
    /// - Precondition: the keys ascend, from above ``lastKey``.
    /// - Complexity: O(`count` + leaves touched × log64 n).
    @inline(__always)
    mutating func appendAscending(count: Int, key: (Int) -> Int64, value: (Int) -> Value) {
        // The leaf the last key went into, and its keys' shared prefix. Not
        // retained: the map holds it, and nothing copies the map meanwhile.
        var leaf: Unmanaged<Node>?
        var leafPrefix: Int64 = -1
        var index = 0
        while index < count {
            let first = key(index)
            precondition(first > largest, "PersistentIntMap.appendAscending: keys must ascend past the largest")
            if let leaf, first &>> Int64(Bitmap.bitsPerLevel) == leafPrefix {
                // Every key from here on that goes into this leaf, its
                // values laid out at once in a new array of the leaf's new
                // size (most often the leaf holds one value so far): one
                // append per object grew the leaf's array six times on its
                // way to 64 and checked its capacity every time, and an
                // append of a lazy map built a temporary array per leaf.
                var end = index + 1, last = first
                var bits = Bitmap.bit(Bitmap.digit(UInt64(first), 0))
                while end < count {
                    let next = key(end)
                    guard next > last, next &>> Int64(Bitmap.bitsPerLevel) == leafPrefix else { break }
                    bits |= Bitmap.bit(Bitmap.digit(UInt64(next), 0))
                    last = next
                    end += 1
                }
                leaf._withUnsafeGuaranteedRef { node in
                    node.bitmap |= bits
                    let start = index
                    node.appendValues(count: end - index) { value(start + $0) }
                }
                largest = last
                self.count += end - index
                index = end
                continue
            }
            // The append path: every node from the root to the key's leaf is
            // this map's alone after it (shared ones are copied), and the
            // leaf gets room for all 64 slots, which the keys after it in
            // the run fill in place: a leaf the append creates is made with
            // that room, and one that was there is given it.
            updateValue(value(index), forKey: first, newLeafRoom: 63)
            leaf = Self.roomInRightmostLeaf(&root!, shift: shift)
            leafPrefix = first &>> Int64(Bitmap.bitsPerLevel)
            index += 1
        }
    }

    /// The rightmost leaf below `node`, which this map alone holds, given
    /// room for a value in each of its 64 slots (replaced by a larger copy
    /// if it has less).
    private static func roomInRightmostLeaf(_ node: inout Node, shift: Int) -> Unmanaged<Node> {
        if shift == 0 {
            let count = node.valueCount
            if !node.hasRoom(for: 64 - count) { node = node.copy(room: 64 - count) }
            return Unmanaged.passUnretained(node)
        }
        return roomInRightmostLeaf(&node.children[node.children.count - 1], shift: shift - Bitmap.bitsPerLevel)
    }

    /// Inserts `key`, larger than every key below `node`: its path is the
    /// rightmost one, so at each level the slot is the last child (when the
    /// digits match) or a new last slot — an append, with no rank to count
    /// and nothing to shift.
    private static func append(_ node: inout Node, shift: Int, key: Int64, value: Value, newLeafRoom: Int) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        let digit = Bitmap.digit(UInt64(key), shift)
        let bit = Bitmap.bit(digit)
        if shift == 0 {
            node.bitmap |= bit
            if !node.hasRoom(for: 1) { node = node.withRoom(for: 1) }
            node.appendValue(value)
            return
        }
        if node.bitmap & bit != 0 {
            // The largest key so far shares this digit: its child is the last.
            append(&node.children[node.children.count - 1], shift: shift - Bitmap.bitsPerLevel, key: key, value: value,
                   newLeafRoom: newLeafRoom)
            return
        }
        node.bitmap |= bit
        node.children.append(Node.path(shift: shift - Bitmap.bitsPerLevel, key: key, value: value, room: newLeafRoom))
    }

    private static func update(_ node: inout Node, shift: Int, key: Int64, value: Value) -> Value? {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        let digit = Bitmap.digit(UInt64(key), shift)
        let bit = Bitmap.bit(digit)
        let position = Bitmap.position(node.bitmap, digit)
        let present = node.bitmap & bit != 0
        if shift == 0 {
            if present {
                return node.modifyValue(at: position) { slot in
                    let old = slot
                    slot = value
                    return old
                }
            }
            node.bitmap |= bit
            if !node.hasRoom(for: 1) { node = node.withRoom(for: 1) }
            node.insertValue(value, at: position)
            return nil
        }
        if present {
            return update(&node.children[position], shift: shift - Bitmap.bitsPerLevel, key: key, value: value)
        }
        node.bitmap |= bit
        node.children.insert(Node.path(shift: shift - Bitmap.bitsPerLevel, key: key, value: value), at: position)
        return nil
    }

    /// Calls `body` with the value for `key` — `defaultValue()` first if
    /// there is none — to edit in place, without a second reference to the
    /// value that would make a copy-on-write value copy itself.
    ///
    /// - Complexity: O(log64 n), plus `body`.
    mutating func modifyValue(forKey key: Int64, default defaultValue: () -> Value, _ body: (inout Value) -> Void) {
        if self[key] == nil { updateValue(defaultValue(), forKey: key) }
        Self.modify(&root!, shift: shift, key: key, body)
    }

    /// Edits the value of `key`, which must be present below `node`.
    private static func modify(_ node: inout Node, shift: Int, key: Int64, _ body: (inout Value) -> Void) {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        let position = Bitmap.position(node.bitmap, Bitmap.digit(UInt64(key), shift))
        if shift == 0 {
            node.modifyValue(at: position, body)
            return
        }
        modify(&node.children[position], shift: shift - Bitmap.bitsPerLevel, key: key, body)
    }

    /// Removes `key`, returning its value, or `nil` (and copying nothing) if
    /// it was not there. Empty nodes are dropped and the root shrinks back.
    ///
    /// - Complexity: O(log64 n).
    @discardableResult
    mutating func removeValue(forKey key: Int64) -> Value? {
        guard self[key] != nil else { return nil }
        let old = Self.remove(&root!, shift: shift, key: key)
        count -= 1
        if root!.bitmap == 0 {
            root = nil
            shift = 0
        }
        while shift > 0, let node = root, node.bitmap == 1 {
            root = node.children[0]
            shift -= Bitmap.bitsPerLevel
        }
        if key == largest { largest = edgeKey(lowest: false) ?? -1 }
        return old
    }

    /// Removes `key`, which must be present below `node`.
    private static func remove(_ node: inout Node, shift: Int, key: Int64) -> Value {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        let digit = Bitmap.digit(UInt64(key), shift)
        let bit = Bitmap.bit(digit)
        let position = Bitmap.position(node.bitmap, digit)
        if shift == 0 {
            node.bitmap &= ~bit
            return node.removeValue(at: position)
        }
        let old = remove(&node.children[position], shift: shift - Bitmap.bitsPerLevel, key: key)
        if node.children[position].bitmap == 0 {
            node.children.remove(at: position)
            node.bitmap &= ~bit
        }
        return old
    }

    /// The smallest key, or `nil` when empty. O(log64 n).
    var firstKey: Int64? { edgeKey(lowest: true) }

    /// The largest key, or `nil` when empty. O(1).
    var lastKey: Int64? { largest < 0 ? nil : largest }

    private func edgeKey(lowest: Bool) -> Int64? {
        guard var node = root else { return nil }
        var shift = self.shift
        var key: Int64 = 0
        while true {
            let digit = lowest ? node.bitmap.trailingZeroBitCount : 63 - node.bitmap.leadingZeroBitCount
            key |= Int64(digit) << Int64(shift)
            if shift == 0 { return key }
            node = lowest ? node.children[0] : node.children[node.children.count - 1]
            shift -= Bitmap.bitsPerLevel
        }
    }
}

// Safe: nodes are written only while uniquely referenced (see `IntMapNode`),
// so nodes reachable from two copies — possibly on two threads — are immutable.
extension PersistentIntMap: @unchecked Sendable where Value: Sendable {}
