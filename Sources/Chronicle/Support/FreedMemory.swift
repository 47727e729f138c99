internal import ChronicleSystem

/// Gives the pages of freed heap blocks back to the system.
enum FreedMemory {
    /// The journal bytes a fold reads from which it calls ``release()``
    /// when done: about 100k events.
    static let largeFold = 4 << 20

    /// Whether a fold that reads `bytes` of journal is large enough to
    /// call ``release()`` after: at least ``largeFold``.
    static func isLargeFold(reading bytes: Int) -> Bool {
        bytes >= largeFold
    }

    /// Asks the allocator to return the whole free pages it keeps, in every
    /// arena, to the system (glibc's `malloc_trim`; nothing elsewhere).
    ///
    /// A fold of a large journal frees its read batches, decoded commits
    /// and the nodes and chunks its tries and indexes outgrew, between the
    /// blocks the state keeps; glibc keeps those pages resident for the
    /// next allocation, which for an open store may never come.
    ///
    /// - Complexity: O(free blocks in the heap).
    static func release() {
        chronicle_release_free_memory()
    }
}
