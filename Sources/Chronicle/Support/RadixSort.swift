/// Orders rows by 64-bit unsigned keys with a least-significant-digit radix
/// sort: one byte a pass, stable, no comparisons.
///
/// A sort by one integer or ASCII-string column (``SortColumns``) maps each
/// row's value to a key whose unsigned order is the column's order; this
/// orders the rows by those keys in O(*n*). A comparison sort makes
/// O(*n* log *n*) comparisons, each, over random names, a branch the
/// processor cannot predict: most of a sorted query's time.
enum RadixSort {
    /// The rows `0..<keys.count` in ascending order of `keys[row]`; rows
    /// with equal keys in ascending row order.
    ///
    /// - Complexity: O(*n*): one pass to count every byte position's
    ///   values, then up to eight passes that move the rows, a pass skipped
    ///   when every key has the same byte there. O(*n*) extra memory.
    static func rows(orderedBy keys: [UInt64]) -> [Int] {
        let count = keys.count
        var rows = Array(0..<count)
        guard count > 1 else { return rows }
        var moved = [Int](repeating: 0, count: count)
        // For each of the eight byte positions, how many keys have each value there.
        var counts = [Int](repeating: 0, count: 8 * 256)
        keys.withUnsafeBufferPointer { keys in
            counts.withUnsafeMutableBufferPointer { counts in
                for key in keys {
                    for position in 0..<8 {
                        counts[position << 8 | Int(truncatingIfNeeded: key >> UInt64(position << 3) & 0xFF)] += 1
                    }
                }
                for position in 0..<8 {
                    let shift = UInt64(position << 3)
                    let histogram = UnsafeMutableBufferPointer(rebasing: counts[(position << 8)..<((position + 1) << 8)])
                    // Every key has the same byte here: the pass would move nothing.
                    if histogram[Int(truncatingIfNeeded: keys[0] >> shift & 0xFF)] == count { continue }
                    // Counts become where each byte value's rows start.
                    var start = 0
                    for value in 0..<256 {
                        let values = histogram[value]
                        histogram[value] = start
                        start += values
                    }
                    rows.withUnsafeBufferPointer { rows in
                        moved.withUnsafeMutableBufferPointer { moved in
                            for row in rows {
                                let value = Int(truncatingIfNeeded: keys[row] >> shift & 0xFF)
                                moved[histogram[value]] = row
                                histogram[value] += 1
                            }
                        }
                    }
                    swap(&rows, &moved)
                }
            }
        }
        return rows
    }

    /// The key of a signed integer: its unsigned order is the integers' order.
    @inline(__always)
    static func key(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: value) ^ (1 << 63)
    }
}
