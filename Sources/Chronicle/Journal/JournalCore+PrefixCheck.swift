/// Where the prefix a trusted open skipped stands.
enum PrefixCheck: Sendable {
    /// Not scanned yet: every lookup of an offset inside it scans it first.
    case pending(UnscannedPrefix)
    /// Scanned and whole (or there was nothing to trust): its offsets are in the index.
    case checked
    /// Scanned and damaged: every lookup inside it throws this again.
    case damaged(JournalError)
}

extension JournalCore {
    /// Scans the prefix a trusted open skipped, once, and puts its offsets in
    /// the index; does nothing if there is none or it was scanned.
    ///
    /// Readers that arrive together wait on ``prefixCheck``'s lock while
    /// one of them scans; appends do not wait: they take only the state's
    /// lock, which the scan holds just to merge the offsets in.
    ///
    /// - Throws: ``JournalError/damaged(offset:lastGoodVersion:reason:)`` if a
    ///   record of the prefix fails its checks (the same error on every later
    ///   call; the versions after the prefix stay readable and appends go on);
    ///   ``JournalError/io(operation:errno:path:)`` (the next call tries again).
    /// - Complexity: O(size of the prefix) the first time, O(1) after.
    func scanUnscannedPrefix() throws(JournalError) {
        try prefixCheck.withLock { (check) throws(JournalError) in
            switch check {
            case .checked:
                return
            case .damaged(let error):
                throw error
            case .pending(let prefix):
                let offsets: [Int]
                do throws(JournalError) {
                    offsets = try prefix.scanRecords(in: storage)
                } catch {
                    if case .damaged = error { check = .damaged(error) }
                    throw error
                }
                state.withLock { state in
                    state.offsets.insert(contentsOf: offsets, at: 0)
                    state.unscannedCount = 0
                }
                check = .checked
            }
        }
    }

    /// How many versions a trusted open left unscanned and are still not in
    /// the index (0 once the prefix is scanned). A test seam.
    var unscannedVersions: UInt64 { state.withLock { $0.unscannedCount } }
}
