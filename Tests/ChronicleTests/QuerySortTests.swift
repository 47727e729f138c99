import Foundation
import Testing
@testable import Chronicle

@Suite("Sort keys")
struct QuerySortTests {
    static func rows(seed: UInt64, count: Int = 300) -> [QRoot] {
        var rng = SplitMix64(seed: seed)
        return (0..<count).map { QueryFixtures.randomRoot(serial: $0, using: &rng, allowNaN: false) }
    }

    static func sortedByKeys(_ rows: [QRoot], _ keys: [SortKey]) -> [Int] {
        rows.map(QRootRow.init).sorted { SortKey.areInIncreasingOrder($0, $1, by: keys) }.map(\.root.serial)
    }

    static let descriptorSets: [[SortDescriptor<QRoot>]] = [
        [SortDescriptor(\.age), SortDescriptor(\.name, order: .reverse)],
        [SortDescriptor(\.n), SortDescriptor(\.address?.city, order: .reverse)],
        [SortDescriptor(\.score, order: .reverse), SortDescriptor(\.born)],
        [SortDescriptor(\.nickname), SortDescriptor(\.level, order: .reverse), SortDescriptor(\.address?.zip)],
        [SortDescriptor(\.id), SortDescriptor(\.price)],
    ]

    @Test(arguments: 0..<descriptorSets.count)
    func matchesFoundationSorting(_ index: Int) throws {
        let descriptors = Self.descriptorSets[index]
        // A unique last key makes the order total, so both sorts must agree exactly.
        let total = descriptors + [SortDescriptor(\QRoot.serial)]
        let keys = try SortKey.keys(for: total, resolver: QueryFixtures.resolve)
        let rows = Self.rows(seed: UInt64(index) + 7)
        #expect(Self.sortedByKeys(rows, keys) == rows.sorted(using: total).map(\.serial))
    }

    @Test func translatesDescriptors() throws {
        let keys = try SortKey.keys(for: [SortDescriptor(\QRoot.age), SortDescriptor(\QRoot.address?.city, order: .reverse)],
                                    resolver: QueryFixtures.resolve)
        #expect(keys == [SortKey(["age"]), SortKey(["address", "city"], ascending: false)])
    }

    @Test func stableForEqualKeys() {
        let rows = Self.rows(seed: 99)
        let sorted = Self.sortedByKeys(rows, [SortKey(["mood"]), SortKey(["active"], ascending: false)])
        // Within each group of equal keys the original (serial) order survives.
        let bySerial = Dictionary(uniqueKeysWithValues: rows.map { ($0.serial, $0) })
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            let x = bySerial[a]!, y = bySerial[b]!
            if x.mood == y.mood && x.active == y.active { #expect(a < b) }
        }
    }

    @Test func nilSortsFirstAscendingAndLastDescending() {
        let rows = Self.rows(seed: 5)
        let ascending = Self.sortedByKeys(rows, [SortKey(["address", "city"])])
        let descending = Self.sortedByKeys(rows, [SortKey(["address", "city"], ascending: false)])
        let bySerial = Dictionary(uniqueKeysWithValues: rows.map { ($0.serial, $0) })
        let nils = rows.filter { $0.address == nil }.count
        #expect(nils > 0)
        #expect(ascending.prefix(nils).allSatisfy { bySerial[$0]!.address == nil })
        #expect(descending.suffix(nils).allSatisfy { bySerial[$0]!.address == nil })
    }

    @Test func rejectsWhatItCannotHonour() {
        #expect(throws: QueryError.self) {
            try SortKey.keys(for: [SortDescriptor(\QRoot.doubleAge)], resolver: QueryFixtures.resolve)
        }
        #expect(throws: QueryError.self) {
            try SortKey.keys(for: [SortDescriptor(\QRoot.name, comparator: .lexical)], resolver: QueryFixtures.resolve)
        }
    }

    /// The order `keys` give, ties broken by position (what a stable sort keeps).
    static func referenceOrder(_ rows: [some QueryRow], _ keys: [SortKey]) -> [Int] {
        rows.indices.sorted { a, b in
            if SortKey.areInIncreasingOrder(rows[a], rows[b], by: keys) { return true }
            if SortKey.areInIncreasingOrder(rows[b], rows[a], by: keys) { return false }
            return a < b
        }
    }

    @Test(arguments: 0..<descriptorSets.count)
    func columnsSortAsTheKeysDo(_ index: Int) throws {
        let keys = try SortKey.keys(for: Self.descriptorSets[index], resolver: QueryFixtures.resolve)
        let rows = Self.rows(seed: UInt64(index) + 70).map(QRootRow.init)
        let columns = SortColumns(keys: keys, count: rows.count) { row, key in rows[row].value(at: keys[key].path) }
        #expect(columns.sortedRows() == Self.referenceOrder(rows, keys))
    }

    /// Columns of one case sort unboxed; a column mixing cases (nulls among
    /// integers, integers among doubles) must still order as `ordered` does.
    @Test(arguments: [
        [PersistedValue.string("b"), .string("a"), .string("é"), .string("a"), .string("B")],
        // ASCII only (sorted by their eight-byte prefixes): shorter strings,
        // equal prefixes longer than eight bytes, NUL bytes, case.
        [.string("abcdefgh2"), .string("abcdefgh1"), .string("abcdefgh"), .string(""), .string("ab"),
         .string("ab\u{0}"), .string("ab\u{0}c"), .string("Zz"), .string("zz"), .string("abcdefgh1"), .string("~")],
        // A combining accent past the eighth byte changes the eighth
        // character ("e" + U+0301 is "é", after "f"): only a check of every
        // byte, not just the first eight, keeps such a column off the prefixes.
        [.string("abcdefgf"), .string("abcdefge\u{301}"), .string("abcdefgd"), .string("abcdefge")],
        [.int(3), .int(-1), .int(3), .int(0)],
        [.double(2.5), .double(-0.0), .double(0), .double(1e300)],
        [.int(3), .null, .double(2.5), .int(1), .null, .string("x")],
    ])
    func unboxedAndMixedColumnsOrderLikePersistedValues(_ values: [PersistedValue]) {
        for ascending in [true, false] {
            #expect(Self.sortedSingleColumn(values, ascending: ascending) == Self.orderedRows(values, ascending: ascending),
                    "ascending: \(ascending)")
        }
    }

    /// The rows of one sort column of `values`, as ``SortColumns`` orders them.
    static func sortedSingleColumn(_ values: [PersistedValue], ascending: Bool) -> [Int] {
        SortColumns(keys: [SortKey(["v"], ascending: ascending)], count: values.count) { row, _ in values[row] }.sortedRows()
    }

    /// The order ``PersistedValue/ordered(_:_:)`` gives `values`, ties in row order.
    static func orderedRows(_ values: [PersistedValue], ascending: Bool) -> [Int] {
        values.indices.sorted { a, b in
            let (l, r) = ascending ? (values[a], values[b]) : (values[b], values[a])
            if PersistedValue.ordered(l, r) { return true }
            if PersistedValue.ordered(r, l) { return false }
            return a < b
        }
    }
}

/// Single-key columns of at least ``SortColumns/radixMinimum`` rows, which
/// integers and ASCII strings sort by ``RadixSort``: the same order as
/// ``PersistedValue/ordered(_:_:)``, ties in row order, both directions.
@Suite("Sort keys: large single-key columns")
struct LargeSortColumnTests {
    static func column(_ kind: Int, count: Int, seed: UInt64) -> [PersistedValue] {
        var rng = SplitMix64(seed: seed)
        let alphabet = Array("abAB~ z\u{0}")
        return (0..<count).map { _ in
            switch kind {
            case 0: // ASCII strings: short ones, long ones sharing eight-byte prefixes, duplicates.
                let length = Int(rng.next() % 13)
                let head = rng.next() % 2 == 0 ? "prefix-a" : ""
                return .string(head + String((0..<length).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }))
            case 1: // Integers over the whole range, extremes and duplicates included.
                switch rng.next() % 8 {
                case 0: return .int(.min)
                case 1: return .int(.max)
                case 2: return .int(0)
                default: return .int(Int64(bitPattern: rng.next()))
                }
            case 2: // Integers in a small range: many ties, every high byte equal (passes skipped).
                return .int(Int64(rng.next() % 50) - 25)
            default: // Non-ASCII strings: no prefixes, a comparison sort.
                return .string(["é", "e\u{301}", "z", "a", "ä"][Int(rng.next() % 5)] + String(rng.next() % 7))
            }
        }
    }

    @Test(arguments: 0..<4, [128, 1000, 4097])
    func ordersLikePersistedValues(kind: Int, count: Int) {
        let values = Self.column(kind, count: count, seed: UInt64(kind * 31 + count))
        for ascending in [true, false] {
            #expect(QuerySortTests.sortedSingleColumn(values, ascending: ascending)
                        == QuerySortTests.orderedRows(values, ascending: ascending),
                    "kind \(kind), count \(count), ascending: \(ascending)")
        }
    }

    @Test(arguments: [0, 1, 2, 255, 256, 3000])
    func radixSortIsAStableSortByKey(count: Int) {
        var rng = SplitMix64(seed: UInt64(count) + 1)
        for spread in [UInt64.max, 0xFF, 0xFF00_0000_0000, 3] {
            let keys = (0..<count).map { _ in rng.next() & spread }
            let expected = keys.indices.sorted { keys[$0] != keys[$1] ? keys[$0] < keys[$1] : $0 < $1 }
            #expect(RadixSort.rows(orderedBy: keys) == expected, "spread \(spread)")
        }
    }

    @Test func signedKeysOrderAsTheIntegers() {
        let integers: [Int64] = [.min, .min + 1, -256, -1, 0, 1, 255, 256, .max - 1, .max]
        let keys = integers.map(RadixSort.key)
        #expect(keys == keys.sorted())
        #expect(Set(keys).count == integers.count)
    }
}
