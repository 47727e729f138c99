import Foundation

/// The narrow hook `ChronicleSync` uses to bring changes made elsewhere
/// (other devices, through the sync server) into a store: one write whose
/// events the caller computes from the committed state while holding the
/// writer lock, so that no local write can slip in between reading the
/// state and applying the events.
///
/// The events go through the ordinary write path: they are folded, checked,
/// appended to the journal as one commit, published, and dispatched to
/// observers exactly as a local write's are.
extension Store {
    /// Runs `body` with the committed state while holding the writer lock,
    /// and commits the events it returns (nothing when it returns none).
    ///
    /// - Returns: The version of the new commit, or `nil` when `body`
    ///   returned no events.
    /// - Throws: What `body` throws, or ``StoreError`` when an event does
    ///   not apply (then nothing is committed).
    @discardableResult
    package func syncWrite(label: String?, metadata: [String: String],
                           _ body: (StoreState) throws -> [Event]) throws -> UInt64? {
        var committed: UInt64?
        try write(label: label, metadata: metadata) {
            let transaction = currentTransaction()!
            let events = try body(transaction.state)
            for event in events { transaction.apply(event) }
            if let failure = transaction.failure { throw failure }
            if !events.isEmpty { committed = transaction.state.version + 1 }
        }
        return committed
    }

    /// The last committed state.
    package var syncCommittedState: StoreState { committedState() }
}

extension Journal {
    /// Creates (or replaces) the journal file at `url` with a base version
    /// and commits, as compaction does: how a sync mirror starts from a
    /// server snapshot.
    package static func syncCreate(at url: URL, baseVersion: UInt64, commits: [Commit]) throws(JournalError) {
        try replaceFile(at: url, baseVersion: baseVersion, commits: commits)
    }
}
