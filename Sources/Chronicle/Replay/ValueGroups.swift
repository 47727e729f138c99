import Foundation

/// Groups the values of one indexed property, object by object, to build
/// its secondary index in one pass (see ``TableRestorer``).
///
/// A `Dictionary<PersistedValue, …>` look-up per object cost more than
/// decoding the object: SipHash over the value's case and bytes, then a
/// generic equality check. Here ints hash with one multiplication and
/// strings with a word-at-a-time hash of their UTF-8 bytes (seeded per
/// process, like `Hasher`, so a crafted file cannot choose collisions).
///
/// Strings group by their bytes, which is finer than `==` (canonically
/// equivalent strings with different bytes are equal): two groups can hold
/// equal values. ``groups(keys:)`` says so, and the caller then builds the
/// index by value instead.
///
/// - Complexity: ``add(_:)`` O(1) expected (O(length) for a string);
///   ``groups(keys:)`` O(n).
struct ValueGroups {
    /// One value per group, in order of first appearance.
    private(set) var values: [PersistedValue] = []
    private var hashes: [UInt64] = []
    /// Open addressing: group + 1 per slot, 0 for empty; a power of two long.
    private var slots = [Int32](repeating: 0, count: 64)
    /// Each added value's group, in order.
    private var groupOfEach: [Int32] = []
    private let seed: UInt64

    init(capacity: Int) {
        groupOfEach.reserveCapacity(capacity)
        seed = UInt64(bitPattern: Int64(Self.processSeed))
    }

    /// Differs from process to process (Swift seeds `Hasher` randomly).
    private static let processSeed: Int = { var hasher = Hasher(); hasher.combine(0x5EED); return hasher.finalize() }()

    /// Adds the next object's value.
    mutating func add(_ value: PersistedValue) {
        let hash = self.hash(value)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            let group = Int(entry - 1)
            if hashes[group] == hash, Self.sameGroup(values[group], value) {
                groupOfEach.append(Int32(group))
                return
            }
            slot = (slot + 1) & mask
        }
        let group = values.count
        values.append(value)
        hashes.append(hash)
        slots[slot] = Int32(group + 1)
        groupOfEach.append(Int32(group))
        if values.count * 2 > slots.count { grow() }
    }

    /// The keys of each group, ascending if `keys` (one per value added, in
    /// order) ascend, by group.
    func groups(keys: [ObjectKey]) -> [ArraySlice<ObjectKey>] {
        var starts = [Int](repeating: 0, count: values.count + 1)
        for group in groupOfEach { starts[Int(group) + 1] += 1 }
        for group in values.indices { starts[group + 1] += starts[group] }
        var next = starts
        var sorted = [ObjectKey](repeating: ObjectKey(0), count: keys.count)
        for (index, group) in groupOfEach.enumerated() {
            sorted[next[Int(group)]] = keys[index]
            next[Int(group)] += 1
        }
        return values.indices.map { sorted[starts[$0]..<starts[$0 + 1]] }
    }

    private mutating func grow() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for (group, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(group + 1)
        }
    }

    /// Whether `a` and `b` share a group: equal ints, strings with equal bytes, other values `==`.
    private static func sameGroup(_ a: PersistedValue, _ b: PersistedValue) -> Bool {
        switch (a, b) {
        case let (.int(x), .int(y)): return x == y
        case (.string(var x), .string(var y)):
            return x.withUTF8 { x in
                y.withUTF8 { y in x.count == y.count && (x.isEmpty || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0) }
            }
        case (.int, _), (.string, _), (_, .int), (_, .string): return false
        default: return a == b
        }
    }

    private func hash(_ value: PersistedValue) -> UInt64 {
        switch value {
        case .int(let integer): return Self.mix(UInt64(bitPattern: integer) ^ seed)
        case .string(var string): return string.withUTF8 { Self.hash($0, seed: seed) }
        default: return UInt64(bitPattern: Int64(value.hashValue))
        }
    }

    private static func mix(_ x: UInt64) -> UInt64 {
        var x = x &* 0x9E37_79B9_7F4A_7C15
        x ^= x >> 29
        x = x &* 0xBF58_476D_1CE4_E5B9
        return x ^ x >> 32
    }

    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>, seed: UInt64) -> UInt64 {
        var hash = seed ^ UInt64(bytes.count)
        guard let base = bytes.baseAddress else { return mix(hash) }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while bytes.count - index >= 8 {
            hash = mix(hash ^ raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            index += 8
        }
        var tail: UInt64 = 0
        while index < bytes.count {
            tail = tail << 8 | UInt64(bytes[index])
            index += 1
        }
        return mix(hash ^ tail)
    }
}
