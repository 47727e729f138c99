/// An element a ``SortedChunks`` keeps in its chunks as a ``Stored`` value
/// relative to the chunk's base (an element no greater than any the chunk
/// keeps relative to it; a type kept as itself ignores the base).
///
/// Object keys are 8 bytes, but the keys of one chunk (at most
/// ``SortedChunks/maximumChunk`` of them, in ascending order) lie close
/// together: an index of 1M objects over 100 values stored them in 8 MB
/// where their distances from each chunk's base take 4. A key too far from
/// a chunk's base for 32 bits starts a chunk of its own.
///
/// The storing must keep the order: for elements `a` and `b` that both
/// store relative to `base`, `a < b` exactly when their stored values are,
/// and `a == b` exactly when those are equal.
protocol ChunkElement: Comparable {
    /// What a chunk keeps for each element.
    associatedtype Stored: Comparable

    /// `element` as kept in a chunk whose base is `base`, or `nil` when it
    /// cannot be (below the base, or too far above it). Once `nil` for an
    /// element, `nil` for every greater one. O(1).
    static func stored(_ element: Self, base: Self) -> Stored?

    /// The element `stored` keeps in a chunk whose base is `base`. O(1).
    static func element(_ stored: Stored, base: Self) -> Self
}

extension ObjectKey: ChunkElement {
    /// The key's distance above the base, in 32 bits.
    @inline(__always)
    static func stored(_ element: ObjectKey, base: ObjectKey) -> UInt32? {
        let (distance, overflow) = element.rawValue.subtractingReportingOverflow(base.rawValue)
        guard !overflow, distance >= 0, distance <= Int64(UInt32.max) else { return nil }
        return UInt32(truncatingIfNeeded: distance)
    }

    @inline(__always)
    static func element(_ stored: UInt32, base: ObjectKey) -> ObjectKey {
        ObjectKey(base.rawValue &+ Int64(stored))
    }
}

extension Backlink: ChunkElement {
    /// The backlink itself: its three parts do not fit in one narrower value.
    @inline(__always)
    static func stored(_ element: Backlink, base: Backlink) -> Backlink? { element }

    @inline(__always)
    static func element(_ stored: Backlink, base: Backlink) -> Backlink { stored }
}
