/// A hash map with value semantics and cheap copies: a hash array mapped
/// trie (CHAMP layout), 6 bits of the key's ``TrieHashable/trieHash`` per
/// level, collision nodes below the last level. Iteration order is
/// unspecified.
///
/// Copying is O(1); a mutation copies only shared nodes on its path
/// (O(depth × 64) memory at worst) and writes in place where nodes are
/// uniquely referenced.
///
/// - Complexity: lookup, insertion, update and removal O(log64 n) expected;
///   `count` O(1).
struct PersistentHashMap<Key: TrieHashable, Value> {
    typealias Node = HashMapNode<Key, Value>

    /// The root, `nil` when empty.
    var root: Node?
    /// The number of entries. O(1).
    private(set) var count: Int

    /// An empty map.
    init() {
        root = nil
        count = 0
    }

    /// A map of a trie built elsewhere (``building(from:)``), which must be
    /// well formed and hold `count` entries.
    init(root: Node, count: Int) {
        self.root = root
        self.count = count
    }

    /// Whether the map is empty. O(1).
    var isEmpty: Bool { count == 0 }

    @inline(__always)
    static func hash(_ key: Key) -> UInt64 { key.trieHash }

    /// The value for `key`, or `nil`. Setting `nil` removes the key.
    ///
    /// - Complexity: O(log64 n) expected.
    subscript(key: Key) -> Value? {
        get {
            guard root != nil else { return nil }
            // Unowned, as in `PersistentIntMap`: the map holds the path, and
            // children are read through their buffer, which retains nothing.
            unowned(unsafe) var node = root.unsafelyUnwrapped
            let hash = Self.hash(key)
            var shift = 0
            while shift < 64 {
                let digit = Bitmap.digit(hash, shift)
                let bit = Bitmap.bit(digit)
                if node.dataMap & bit != 0 {
                    let position = Bitmap.position(node.dataMap, digit)
                    return node.entries.withUnsafeBufferPointer { $0[position].key == key ? $0[position].value : nil }
                }
                guard node.nodeMap & bit != 0 else { return nil }
                let position = Bitmap.position(node.nodeMap, digit)
                node = node.children.withUnsafeBufferPointer { Unmanaged.passUnretained($0[position]) }.takeUnretainedValue()
                shift += Bitmap.bitsPerLevel
            }
            return node.entries.first { $0.key == key }?.value
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Sets the value for `key`, returning the value it replaced.
    ///
    /// - Complexity: O(log64 n) expected.
    @discardableResult
    mutating func updateValue(_ value: Value, forKey key: Key) -> Value? {
        updateValue(value, forKey: key, hash: Self.hash(key))
    }

    /// ``updateValue(_:forKey:)`` with `key`'s hash already computed.
    @discardableResult
    private mutating func updateValue(_ value: Value, forKey key: Key, hash: UInt64) -> Value? {
        guard root != nil else {
            let digit = Bitmap.digit(hash, 0)
            root = Node(dataMap: Bitmap.bit(digit), entries: [(key, value)])
            count = 1
            return nil
        }
        let old = Self.update(&root!, hash: hash, shift: 0, key: key, value: value)
        if old == nil { count += 1 }
        return old
    }

    /// Moves the entry at `index` (in slot `digit` of `node`, a node at
    /// `shift` that the caller may write) and `entry`, whose hashes share
    /// that slot, into a new child node one level down.
    private static func pushDown(_ node: Node, entryAt index: Int, digit: Int, adding entry: (key: Key, value: Value),
                                 hash: UInt64, shift: Int) {
        let bit = Bitmap.bit(digit)
        let existing = node.entries.remove(at: index)
        node.dataMap &= ~bit
        let child = Node.merge(existing, Self.hash(existing.key), entry, hash, shift: shift + Bitmap.bitsPerLevel)
        node.nodeMap |= bit
        node.children.insert(child, at: Bitmap.position(node.nodeMap, digit))
    }

    private static func update(_ node: inout Node, hash: UInt64, shift: Int, key: Key, value: Value) -> Value? {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if shift >= 64 {
            if let index = node.entries.firstIndex(where: { $0.key == key }) {
                defer { node.entries[index].value = value }
                return node.entries[index].value
            }
            node.entries.append((key, value))
            return nil
        }
        let digit = Bitmap.digit(hash, shift)
        let bit = Bitmap.bit(digit)
        if node.dataMap & bit != 0 {
            let index = Bitmap.position(node.dataMap, digit)
            if node.entries[index].key == key {
                defer { node.entries[index].value = value }
                return node.entries[index].value
            }
            pushDown(node, entryAt: index, digit: digit, adding: (key, value), hash: hash, shift: shift)
            return nil
        }
        if node.nodeMap & bit != 0 {
            return update(&node.children[Bitmap.position(node.nodeMap, digit)], hash: hash,
                          shift: shift + Bitmap.bitsPerLevel, key: key, value: value)
        }
        node.dataMap |= bit
        node.entries.insert((key, value), at: Bitmap.position(node.dataMap, digit))
        return nil
    }

    /// Calls `body` with the value for `key` — `defaultValue()` first if
    /// there is none — to edit in place, without a second reference to the
    /// value that would make a copy-on-write value copy itself.
    ///
    /// - Complexity: O(log64 n) expected, plus `body`.
    mutating func modifyValue(forKey key: Key, default defaultValue: () -> Value, _ body: (inout Value) -> Void) {
        // One hash and one walk for the look-up, the insertion and the edit:
        // hashing a string key was most of the cost of indexing a new
        // object, and a walk to find the key, then one to edit it, added a
        // good part of that again.
        modifyValue(forKey: key, hash: Self.hash(key), default: defaultValue, body)
    }

    /// ``modifyValue(forKey:default:_:)`` of a key whose hash
    /// (`key.trieHash`) the caller has already computed.
    mutating func modifyValue(forKey key: Key, hash: UInt64, default defaultValue: () -> Value, _ body: (inout Value) -> Void) {
        guard root != nil else {
            var value = defaultValue()
            body(&value)
            root = Node(dataMap: Bitmap.bit(Bitmap.digit(hash, 0)), entries: [(key, value)])
            count = 1
            return
        }
        if Self.upsert(&root!, hash: hash, shift: 0, key: key, defaultValue, body) { count += 1 }
    }

    /// Edits the value of `key` below `node`, inserting `defaultValue()`
    /// (edited) if the key is absent; returns whether it inserted.
    private static func upsert(_ node: inout Node, hash: UInt64, shift: Int, key: Key,
                               _ defaultValue: () -> Value, _ body: (inout Value) -> Void) -> Bool {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if shift >= 64 {
            if let index = node.entries.firstIndex(where: { $0.key == key }) {
                body(&node.entries[index].value)
                return false
            }
            var value = defaultValue()
            body(&value)
            node.entries.append((key, value))
            return true
        }
        let digit = Bitmap.digit(hash, shift)
        let bit = Bitmap.bit(digit)
        if node.dataMap & bit != 0 {
            let index = Bitmap.position(node.dataMap, digit)
            if node.entries.withUnsafeBufferPointer({ $0[index].key == key }) {
                body(&node.entries[index].value)
                return false
            }
            var value = defaultValue()
            body(&value)
            pushDown(node, entryAt: index, digit: digit, adding: (key, value), hash: hash, shift: shift)
            return true
        }
        if node.nodeMap & bit != 0 {
            return upsert(&node.children[Bitmap.position(node.nodeMap, digit)], hash: hash,
                          shift: shift + Bitmap.bitsPerLevel, key: key, defaultValue, body)
        }
        var value = defaultValue()
        body(&value)
        node.dataMap |= bit
        node.entries.insert((key, value), at: Bitmap.position(node.dataMap, digit))
        return true
    }

    /// Removes `key`, returning its value, or `nil` (copying nothing) if it
    /// was absent. A subtree left with one entry is pulled up into its parent.
    ///
    /// - Complexity: O(log64 n) expected.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard self[key] != nil else { return nil }
        let old = Self.remove(&root!, hash: Self.hash(key), shift: 0, key: key)
        count -= 1
        if count == 0 { root = nil }
        return old
    }

    /// Removes `key`, which must be present below `node`.
    private static func remove(_ node: inout Node, hash: UInt64, shift: Int, key: Key) -> Value {
        if !isKnownUniquelyReferenced(&node) { node = node.copy() }
        if shift >= 64 {
            let index = node.entries.firstIndex { $0.key == key }!
            return node.entries.remove(at: index).value
        }
        let digit = Bitmap.digit(hash, shift)
        let bit = Bitmap.bit(digit)
        if node.dataMap & bit != 0 {
            node.dataMap &= ~bit
            return node.entries.remove(at: Bitmap.position(node.dataMap, digit)).value
        }
        let index = Bitmap.position(node.nodeMap, digit)
        let old = remove(&node.children[index], hash: hash, shift: shift + Bitmap.bitsPerLevel, key: key)
        let child = node.children[index]
        if child.children.isEmpty && child.entries.count == 1 {
            node.children.remove(at: index)
            node.nodeMap &= ~bit
            node.dataMap |= bit
            node.entries.insert(child.entries[0], at: Bitmap.position(node.dataMap, digit))
        }
        return old
    }
}

// Safe: nodes are written only while uniquely referenced (see `HashMapNode`),
// so nodes reachable from two copies — possibly on two threads — are immutable.
extension PersistentHashMap: @unchecked Sendable where Key: Sendable, Value: Sendable {}

/// A key of a ``PersistentHashMap``: `Hashable`, with the hash the trie
/// files it by.
protocol TrieHashable: Hashable {
    /// A hash that equal keys share; by default `hashValue`.
    var trieHash: UInt64 { get }
}

extension TrieHashable {
    var trieHash: UInt64 { UInt64(bitPattern: Int64(hashValue)) }
}

extension Int: TrieHashable {}
extension String: TrieHashable {}

extension PersistedValue: TrieHashable {
    /// Ints, strings, object identifiers and UUIDs — the usual indexed and
    /// primary-key values — by ``SeededHash``; the other cases by
    /// `hashValue` (SipHash: about ten times the instructions). Consistent
    /// with `==`, which never equates values of different cases, and
    /// compares identifiers and UUIDs by their bytes.
    var trieHash: UInt64 {
        switch self {
        case .int(let value): return SeededHash.integer(UInt64(bitPattern: value))
        case .string(let value): return SeededHash.string(value)
        case .objectId(let value):
            let words = value.words
            return SeededHash.words(words.0, words.1)
        case .uuid(let value):
            let words = withUnsafeBytes(of: value.uuid) {
                ($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            }
            return SeededHash.words(words.0, words.1)
        default: return UInt64(bitPattern: Int64(hashValue))
        }
    }
}
