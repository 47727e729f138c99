import Foundation

/// Decodes the values of one indexed property, object by object, and
/// groups them to build its secondary index in one pass (see ``TableRestorer``).
///
/// A `Dictionary<PersistedValue, …>` look-up per object cost more than
/// decoding the object: SipHash over the value's case and bytes, then a
/// generic equality check. Here ints hash with one multiplication and
/// strings with a word-at-a-time hash of their encoded UTF-8 bytes (seeded
/// per process, like `Hasher`, so a crafted file cannot choose collisions),
/// before they are decoded: a string seen before is not validated or made
/// again, its group's value is shared (one copy of a long string, not one
/// per object).
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
    /// For a string's group, where its encoded bytes are in `arena`.
    private var stringBytes: [Range<Int>?] = []
    private var arena: [UInt8] = []
    /// Open addressing: group + 1 per slot, 0 for empty; a power of two long.
    private var slots = [Int32](repeating: 0, count: 64)
    /// Each added value's group, in order.
    private var groupOfEach: [Int32] = []
    private let seed: UInt64

    init(capacity: Int) {
        groupOfEach.reserveCapacity(capacity)
        seed = SeededHash.seed
    }

    /// Decodes the next object's value and files it in its group.
    /// - Throws: what ``EventCodec/decodeValue(_:depth:)`` throws for the same bytes.
    mutating func decode(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> PersistedValue {
        switch r.peek() {
        case CheckpointFile.stringTag?:
            _ = try r.byte()
            let length = try r.count(limit: r.remaining)
            let start = r.offset
            let bytes = try r.bytes(length)
            let hash = SeededHash.bytes(bytes, seed: seed)
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] != 0 {
                let group = Int(slots[slot] - 1)
                if hashes[group] == hash, let range = stringBytes[group], range.count == length,
                   arena.withUnsafeBytes({ length == 0 || memcmp($0.baseAddress! + range.lowerBound, bytes.baseAddress!, length) == 0 }) {
                    groupOfEach.append(Int32(group))
                    return values[group]
                }
                slot = (slot + 1) & mask
            }
            guard let string = BinaryReader.validUTF8(bytes.bindMemory(to: UInt8.self)) else {
                throw BinaryReader.Malformed(offset: start, reason: "string is not valid UTF-8")
            }
            let range = arena.count..<(arena.count + length)
            arena.append(contentsOf: bytes)
            let value = PersistedValue.string(string)
            insert(value, hash: hash, stringBytes: range, at: slot)
            return value
        case CheckpointFile.intTag?:
            _ = try r.byte()
            let value = PersistedValue.int(try r.signed())
            add(value)
            return value
        default:
            let value = try EventCodec.decodeValue(&r)
            add(value)
            return value
        }
    }

    /// Files a value that is not a string.
    private mutating func add(_ value: PersistedValue) {
        let hash: UInt64
        if case .int(let integer) = value {
            hash = SeededHash.integer(UInt64(bitPattern: integer), seed: seed)
        } else {
            hash = value.trieHash
        }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] != 0 {
            let group = Int(slots[slot] - 1)
            // Strings are filed by `decode(_:)` alone, by their bytes.
            if hashes[group] == hash, stringBytes[group] == nil, values[group] == value {
                groupOfEach.append(Int32(group))
                return
            }
            slot = (slot + 1) & mask
        }
        insert(value, hash: hash, stringBytes: nil, at: slot)
    }

    private mutating func insert(_ value: PersistedValue, hash: UInt64, stringBytes range: Range<Int>?, at slot: Int) {
        let group = values.count
        values.append(value)
        hashes.append(hash)
        stringBytes.append(range)
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
}
