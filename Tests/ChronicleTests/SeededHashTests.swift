import Foundation
import Testing
@testable import Chronicle

/// The hash the index tries file values by: equal values hash alike (the
/// trie's correctness), different ones rarely (its speed).
@Suite("Seeded hash")
struct SeededHashTests {
    /// Pairs of strings Swift's `==` calls equal though their bytes differ.
    static let equalPairs: [(String, String)] = [
        ("K", "\u{212A}"),                           // KELVIN SIGN
        (";", "\u{037E}"),                           // GREEK QUESTION MARK
        ("`", "\u{1FEF}"),                           // GREEK VARIA
        ("a longer ASCII line with a K in it", "a longer ASCII line with a \u{212A} in it"),
        ("é", "e\u{301}"),
        ("Ké", "\u{212A}e\u{301}"),
        ("日本語のテキスト", "日本語のテキスト"),
        ("Å", "\u{212B}"),                           // ANGSTROM SIGN
    ]

    @Test(arguments: equalPairs.indices)
    func equalStringsHashAlike(_ index: Int) {
        let (left, right) = Self.equalPairs[index]
        #expect(left == right)
        #expect(SeededHash.string(left) == SeededHash.string(right))
        #expect(PersistedValue.string(left).trieHash == PersistedValue.string(right).trieHash)
    }

    /// The hash of up to 15 bytes held in two words (a short string's,
    /// which the fold's index entries hash) is the hash of those bytes in
    /// a buffer, at every length and whatever the bytes.
    @Test(arguments: 0...15)
    func shortBytesInWordsHashAsTheBytes(count: Int) {
        var generator = SplitMix64(seed: UInt64(count) &* 77 &+ 1)
        for _ in 0..<50 {
            var words: (UInt64, UInt64) = (generator.next(), generator.next())
            withUnsafeMutableBytes(of: &words) { bytes in
                for index in count..<16 { bytes[index] = 0 }
            }
            let inBuffer = withUnsafeBytes(of: words) { SeededHash.bytes(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            #expect(SeededHash.short(words, count: count) == inBuffer)
        }
    }

    /// An indexed value filed from a record's slot (a fold's run of
    /// creates) hashes as the same value looked up later: every length of
    /// short ASCII string, integers of every size, and values that take
    /// the ordinary way.
    @Test func indexEntriesHashValuesAsTheIndexLooksThemUp() {
        var values: [PersistedValue] = (0...15).map { .string(String("abcdefghijklmnop".prefix($0))) }
        values += [.string("sixteen letters!"), .string("café"), .string("K\u{212A}")]
        values += [0, 1, -1, 127, 128, 1 << 40, .min, .max].map { PersistedValue.int($0) }
        for value in values {
            let record = ObjectRecord([value])
            var pending = PendingIndexEntries()
            pending.add(ObjectKey(1), table: 0, property: 0, from: record)
            pending.add(ObjectKey(2), table: 0, property: 0, value: value)
            var filed: [(PersistedValue, UInt64, [ObjectKey])] = []
            pending.drain { entry, keys in filed.append((entry.value, entry.hash, Array(keys))) }
            #expect(filed.count == 1, "\(value): one entry for both keys")
            #expect(filed.first?.0 == value)
            #expect(filed.first?.1 == value.trieHash, "\(value)")
            #expect(filed.first?.2 == [ObjectKey(1), ObjectKey(2)])
        }
    }

    /// Keys of values that interleave (players of many teams made in turn)
    /// are drained per value in the order they were added, every key once.
    @Test func interleavedIndexEntriesDrainEachValuesKeysInOrder() {
        var pending = PendingIndexEntries()
        var expected: [PersistedValue: [ObjectKey]] = [:]
        for key in 1...1_000 {
            // Team names by a stride that revisits values out of order.
            let value = PersistedValue.string("team\((key * 37) % 101)")
            pending.add(ObjectKey(Int64(key)), table: 0, property: 2, value: value)
            expected[value, default: []].append(ObjectKey(Int64(key)))
        }
        var drained: [PersistedValue: [ObjectKey]] = [:]
        var order: [PersistedValue] = []
        pending.drain { entry, keys in
            #expect(drained[entry.value] == nil, "\(entry.value) drained twice")
            drained[entry.value] = Array(keys)
            order.append(entry.value)
        }
        #expect(drained == expected)
        // Entries in the order their values first came.
        #expect(order == (1...101).map { PersistedValue.string("team\(($0 * 37) % 101)") })
        #expect(pending.isEmpty)
        var again = false
        pending.drain { _, _ in again = true }
        #expect(!again, "a drained list is empty")
    }

    /// Object identifiers and UUIDs — the usual non-integer primary keys —
    /// hash by their bytes: equal values made apart hash alike, values
    /// differing in any one byte hash apart, and an index keyed by them
    /// finds every one (an `ObjectId` differing only in its last four
    /// bytes, which the hash reads from its second word, included).
    @Test func objectIdentifiersAndUUIDsHashByTheirBytes() throws {
        let id = ObjectId.generate()
        let again = try #require(ObjectId(id.description))
        #expect(PersistedValue.objectId(id).trieHash == PersistedValue.objectId(again).trieHash)
        let uuid = UUID()
        let uuidAgain = try #require(UUID(uuidString: uuid.uuidString))
        #expect(PersistedValue.uuid(uuid).trieHash == PersistedValue.uuid(uuidAgain).trieHash)
        var hashes = Set<UInt64>()
        for byte in 0..<12 {
            var hex = Array(id.description)
            hex[2 * byte] = hex[2 * byte] == "0" ? "1" : "0"
            let changed = try #require(ObjectId(String(hex)))
            hashes.insert(PersistedValue.objectId(changed).trieHash)
        }
        for byte in 0..<16 {
            var bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            bytes[byte] ^= 0x10
            let changed = bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            hashes.insert(PersistedValue.uuid(changed).trieHash)
        }
        hashes.insert(PersistedValue.objectId(id).trieHash)
        hashes.insert(PersistedValue.uuid(uuid).trieHash)
        #expect(hashes.count == 30)
        var index = PersistentHashMap<PersistedValue, ObjectKey>()
        var keys: [PersistedValue] = []
        for number in 0..<3_000 {
            keys.append(number.isMultiple(of: 2) ? .objectId(.generate()) : .uuid(UUID()))
            index[keys[number]] = ObjectKey(Int64(number))
        }
        index._checkInvariants()
        #expect(index.count == 3_000)
        for (number, key) in keys.enumerated() { #expect(index[key] == ObjectKey(Int64(number))) }
    }

    /// Exactly three non-ASCII scalars are canonically equivalent to ASCII
    /// ones, the three the hash replaces: the claim its consistency rests on.
    @Test func onlyThreeScalarsDecomposeToASCII() {
        var found: [UInt32] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let decomposed = String(Character(scalar)).decomposedStringWithCanonicalMapping
            if decomposed.utf8.allSatisfy({ $0 < 0x80 }) { found.append(value) }
        }
        #expect(found == [0x037E, 0x1FEF, 0x212A])
    }

    /// 10,000 different strings of 1 to 28 bytes, 10,000 different hashes
    /// (a collision among them has odds of about 1 in 10^11).
    @Test func differentStringsDoNotCollide() {
        let strings = Set((0..<10_000).map { String(repeating: "x", count: $0 % 25) + "\($0)" })
        let hashes = Set(strings.map { SeededHash.string($0) })
        #expect(strings.count == 10_000)
        #expect(hashes.count == strings.count)
    }

    /// The mixer is a bijection: distinct integers never share a hash.
    @Test func integersNeverCollide() {
        let hashes = Set((-50_000..<50_000).map { SeededHash.integer(UInt64(bitPattern: Int64($0))) })
        #expect(hashes.count == 100_000)
    }

    @Test func otherCasesHashByHashValue() {
        let date = PersistedValue.date(Date(timeIntervalSinceReferenceDate: 5))
        #expect(date.trieHash == UInt64(bitPattern: Int64(date.hashValue)))
        #expect(PersistedValue.double(.nan).trieHash == PersistedValue.double(-.nan).trieHash)
    }
}
