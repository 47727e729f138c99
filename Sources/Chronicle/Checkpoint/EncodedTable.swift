/// A deferred table whose objects can also be read left encoded, a block
/// at a time, where they are stored: the checkpoint file's tables.
///
/// Declared here, not in `State/`, so that the fold's layer names nothing
/// of the checkpoint format; a scan asks for it once, with a cast, when it
/// starts (see ``EncodedScan``).
protocol EncodedTable: DeferredTable {
    /// The stored run of objects that holds the first object whose key is
    /// `>= start`, checked but left encoded, without the objects below
    /// `start` (see ``EncodedBlock``): ``EncodedRun/unavailable``, having
    /// read nothing, when the objects should come from the built table (as
    /// for ``forEachLeaf(from:_:)``) or a run turns out damaged.
    func encodedBlock(from start: Int64) -> EncodedRun
}

/// What ``EncodedTable/encodedBlock(from:)`` found.
enum EncodedRun {
    /// The next objects, at least one.
    case objects(EncodedBlock)
    /// No object at or past the key asked for.
    case end
    /// Read the built table instead.
    case unavailable
}
