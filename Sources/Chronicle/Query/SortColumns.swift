import Foundation

/// The persisted sort values of the objects being sorted, one column per
/// ``SortKey``, read once per object before sorting.
///
/// A column whose values all share a case keeps them unboxed (`[String]`,
/// `[Int64]`, `[Double]`), so that a comparison is one `<` on the payloads
/// instead of a copy and a switch over two ``PersistedValue``s. Every
/// column orders exactly as ``PersistedValue/ordered(_:_:)`` does.
///
/// Non-generic on purpose: the sort runs O(*n* log *n*) comparisons, and
/// code generic over the ``Results`` element type would look type metadata
/// up in each of them.
struct SortColumns {
    private enum Column {
        /// Strings, with each one's first eight UTF-8 bytes as a big-endian
        /// integer (zero-padded) when every string is ASCII.
        case strings([String], prefixes: [UInt64]?)
        case integers([Int64])
        case doubles([Double])
        case values([PersistedValue])

        init(_ values: [PersistedValue]) {
            if let strings = Self.unboxed(values, { if case .string(let s) = $0 { s } else { nil } }) {
                self = .strings(strings, prefixes: Self.asciiPrefixes(strings))
            } else if let integers = Self.unboxed(values, { if case .int(let i) = $0 { i } else { nil } }) {
                self = .integers(integers)
            } else if let doubles = Self.unboxed(values, { if case .double(let d) = $0 { d } else { nil } }) {
                self = .doubles(doubles)
            } else {
                self = .values(values)
            }
        }

        /// Each string's first eight bytes, or `nil` unless all are ASCII.
        ///
        /// Why it orders like `String.<`: Swift compares strings by their
        /// canonical (NFC) Unicode scalars; ASCII is its own NFC and one
        /// byte per scalar, so comparing bytes is comparing scalars, and a
        /// shorter string is a prefix that pads with zeros. Unequal
        /// prefixes decide with one integer comparison; equal ones fall
        /// back to `String.<`.
        private static func asciiPrefixes(_ strings: [String]) -> [UInt64]? {
            var prefixes: [UInt64] = []
            prefixes.reserveCapacity(strings.count)
            for string in strings {
                // Through the contiguous UTF-8, in place, eight bytes at a
                // time: iterating `string.utf8` byte by byte cost several
                // times as much, and `withUTF8` needs a mutable copy of the
                // string.
                let prefix = string.utf8.withContiguousStorageIfAvailable { Self.asciiPrefix(UnsafeRawBufferPointer($0)) }
                    ?? { var string = string; return string.withUTF8 { Self.asciiPrefix(UnsafeRawBufferPointer($0)) } }()
                guard let prefix else { return nil }
                prefixes.append(prefix)
            }
            return prefixes
        }

        /// The first eight bytes of `bytes` as a big-endian integer, zero
        /// padded, or `nil` unless every byte is ASCII. O(`bytes.count`).
        static func asciiPrefix(_ bytes: UnsafeRawBufferPointer) -> UInt64? {
            var highBits: UInt64 = 0
            var prefix: UInt64 = 0
            var offset = 0
            while offset + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                if offset == 0 { prefix = UInt64(bigEndian: word) }
                highBits |= word
                offset += 8
            }
            if offset < bytes.count {
                var word: UInt64 = 0
                withUnsafeMutableBytes(of: &word) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset...])) }
                if offset == 0 { prefix = UInt64(bigEndian: word) }
                highBits |= word
            }
            return highBits & 0x8080_8080_8080_8080 == 0 ? prefix : nil
        }

        /// Every payload, or `nil` as soon as one value is of another case.
        private static func unboxed<T>(_ values: [PersistedValue], _ payload: (PersistedValue) -> T?) -> [T]? {
            var result: [T] = []
            result.reserveCapacity(values.count)
            for value in values {
                guard let unboxed = payload(value) else { return nil }
                result.append(unboxed)
            }
            return result
        }

        /// A comparison of two rows of this column, `ascending` or not,
        /// with the column's payload unwrapped once.
        ///
        /// Why a closure: switching over `self` in each comparison binds the
        /// column's arrays, a retain and a release of each per comparison —
        /// more than the comparison itself.
        func comparator(ascending: Bool) -> (Int, Int) -> ComparisonResult {
            switch self {
            case .strings(let column, let prefixes?):
                let compare = { (a: Int, b: Int) -> ComparisonResult in
                    let left = prefixes[a], right = prefixes[b]
                    if left != right { return left < right ? .orderedAscending : .orderedDescending }
                    return Self.compare(column[a], column[b], by: <)
                }
                return ascending ? compare : { compare($1, $0) }
            case .strings(let column, nil):
                return ascending ? { Self.compare(column[$0], column[$1], by: <) } : { Self.compare(column[$1], column[$0], by: <) }
            case .integers(let column):
                return ascending ? { Self.compare(column[$0], column[$1], by: <) } : { Self.compare(column[$1], column[$0], by: <) }
            case .doubles(let column):
                return ascending ? { Self.compare(column[$0], column[$1], by: <) } : { Self.compare(column[$1], column[$0], by: <) }
            case .values(let column):
                return ascending ? { Self.compare(column[$0], column[$1], by: PersistedValue.ordered) }
                    : { Self.compare(column[$1], column[$0], by: PersistedValue.ordered) }
            }
        }

        @inline(__always)
        private static func compare<T>(_ a: T, _ b: T, by less: (T, T) -> Bool) -> ComparisonResult {
            if less(a, b) { return .orderedAscending }
            if less(b, a) { return .orderedDescending }
            return .orderedSame
        }
    }

    /// Wrapped in a struct: closures stored directly in an array are kept
    /// at their most general abstraction and called through a thunk on
    /// every comparison.
    private struct Comparator { let compare: (Int, Int) -> ComparisonResult }

    /// One per key, its direction applied, made once from the key's column.
    private let comparators: [Comparator]
    /// With a single key whose column sorts by integers alone (ASCII
    /// strings' prefixes, or integers), that column and its direction.
    private let single: (column: Column, ascending: Bool)?
    /// How many rows each column has.
    let count: Int

    /// Columns for `keys`, with `value(row, key)` the value of sort key
    /// `key` (an index into `keys`) for row `row`, `nil` reading as null.
    ///
    /// - Complexity: O(*n* × *k*) value reads for *n* rows and *k* keys.
    init(keys: [SortKey], count: Int, value: (_ row: Int, _ key: Int) -> PersistedValue?) {
        self.count = count
        let columns = keys.indices.map { key in Column((0..<count).map { row in value(row, key) ?? .null }) }
        comparators = zip(columns, keys).map { Comparator(compare: $0.comparator(ascending: $1.ascending)) }
        single = columns.count == 1 ? (columns[0], keys[0].ascending) : nil
    }

    /// From how many rows a single integer or ASCII-string key is sorted
    /// by ``RadixSort`` rather than by comparisons: below it, clearing
    /// the radix sort's counts costs more than the comparisons it saves.
    static let radixMinimum = 128

    /// The rows ordered by `column` (one key over integers, or over ASCII
    /// strings, whose first eight bytes are integers already) by a radix
    /// sort, rows equal under the key in their original order; `nil` for
    /// another column. Strings whose first eight bytes are equal are then
    /// ordered by the whole string, run by run.
    ///
    /// No comparisons: over random strings each one is a branch the
    /// processor cannot predict (see `RadixSort`).
    ///
    /// - Complexity: O(*n*), plus a comparison sort of each run of rows
    ///   whose strings share their first eight bytes.
    private static func radixSortedRows(_ column: Column, ascending: Bool) -> [Int]? {
        switch column {
        case .integers(let integers):
            return RadixSort.rows(orderedBy: integers.map { ascending ? RadixSort.key($0) : ~RadixSort.key($0) })
        case .strings(let strings, let prefixes?):
            var rows = RadixSort.rows(orderedBy: ascending ? prefixes : prefixes.map { ~$0 })
            var start = 0
            while start < rows.count {
                var end = start + 1
                while end < rows.count, prefixes[rows[end]] == prefixes[rows[start]] { end += 1 }
                if end - start > 1 {
                    rows[start..<end].sort { a, b in
                        let left = strings[a], right = strings[b]
                        if left != right { return ascending ? left < right : right < left }
                        return a < b
                    }
                }
                start = end
            }
            return rows
        default:
            return nil
        }
    }

    /// How rows `a` and `b` compare under key `key`, its direction applied.
    @inline(__always)
    func compare(_ a: Int, _ b: Int, key: Int) -> ComparisonResult { comparators[key].compare(a, b) }

    /// The row indices in sorted order: by every key in turn, rows equal
    /// under all of them in their original order.
    ///
    /// - Complexity: O(*n* log *n*) comparisons, each O(*k*).
    func sortedRows() -> [Int] {
        // One key over ASCII strings or integers: the comparison inline in
        // the sort, with no closure call per comparison.
        if let (column, ascending) = single {
            if count >= Self.radixMinimum, let rows = Self.radixSortedRows(column, ascending: ascending) { return rows }
            var rows = Array(0..<count)
            switch column {
            case .strings(let strings, let prefixes?):
                rows.sort { a, b in
                    let left = prefixes[a], right = prefixes[b]
                    if left != right { return ascending ? left < right : right < left }
                    let l = strings[a], r = strings[b]
                    if ascending ? l < r : r < l { return true }
                    if ascending ? r < l : l < r { return false }
                    return a < b
                }
                return rows
            case .integers(let integers):
                rows.sort { a, b in
                    let left = integers[a], right = integers[b]
                    if left != right { return ascending ? left < right : right < left }
                    return a < b
                }
                return rows
            default:
                break
            }
        }
        if comparators.count == 1 {
            // One key, the common case: one closure call a comparison.
            let compare = comparators[0].compare
            return (0..<count).sorted { a, b in
                switch compare(a, b) {
                case .orderedAscending: true
                case .orderedDescending: false
                case .orderedSame: a < b
                }
            }
        }
        return (0..<count).sorted { a, b in
            for comparator in comparators {
                switch comparator.compare(a, b) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return a < b
        }
    }
}
