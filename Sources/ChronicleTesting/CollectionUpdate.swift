import Chronicle

/// A collection stream's update, as ``StreamProbe/nextUpdate(timeout:sourceLocation:)``
/// returns it: the collection after the change and the index sets.
///
/// ```swift
/// let update = try await probe.nextUpdate()
/// #expect(update.insertions == [0])
/// ```
///
/// `deletions` and `modifications` are indexes before the change,
/// `insertions` indexes after it (as ``Chronicle/CollectionChange`` has them).
public struct CollectionUpdate<Collection: Sendable>: Sendable {
    /// The collection after the change.
    public let collection: Collection
    /// Indexes, before the change, of the elements removed.
    public let deletions: [Int]
    /// Indexes, after the change, of the elements added.
    public let insertions: [Int]
    /// Indexes, before the change, of the elements whose observed properties changed.
    public let modifications: [Int]
}
