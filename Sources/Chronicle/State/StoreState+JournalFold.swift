/// Why folding a journal's commits stopped short.
enum JournalFoldError: Error, Sendable {
    /// A commit could not be read.
    case journal(JournalError)
    /// A commit was read but does not fold onto the state before it.
    case fold(FoldError)
}

extension StoreState {
    /// Folds the commits `reader` reads next into the state, one at a
    /// time, until the state is at version `last` or the journal has no
    /// more; `didFold` sees the state after each commit and how many events
    /// the commit held, and says whether to go on.
    ///
    /// The one loop that reads and folds a journal: opening a store,
    /// rebuilding a damaged checkpoint, and folding to an old version all
    /// go through it (or through ``walk(_:through:_:)``, its form with
    /// change sets).
    ///
    /// - Complexity: O(events folded).
    mutating func fold<Source: CommitSource>(_ reader: inout Source, through last: UInt64 = .max,
                       didFold: (borrowing StoreState, _ events: Int) -> Bool = { _, _ in true }) throws(JournalFoldError) {
        // One list for every commit, so that its storage is reused.
        var pending = PendingIndexEntries()
        try readCommits(&reader, through: last) { (state, commit, creates) throws(JournalFoldError) in
            do throws(FoldError) {
                try state.foldInPlace(commit, creates: creates, filing: &pending)
            } catch {
                throw .fold(error)
            }
            return didFold(state, commit.events.count + creates.count)
        }
    }

    /// ``fold(_:through:didFold:)`` of `reader`, reading and decoding its
    /// commits on the read-ahead thread while this one folds when there is
    /// enough to read for that to pay (``CommitReadAhead``). Opening a
    /// store, ``Store``'s whole-journal folds and rebuilding a damaged
    /// checkpoint fold this way. The same commits, the same errors. After
    /// a fold of a large journal, the pages it freed go back to the system
    /// (``FreedMemory/release()``), unless `releasingFreedMemory` is false:
    /// a caller that frees more right after the fold releases them itself.
    ///
    /// - Complexity: O(events folded); with a read-ahead, also up to a few
    ///   batches read past `last` and not folded.
    mutating func foldReadingAhead(_ reader: CommitReader, through last: UInt64 = .max, releasingFreedMemory: Bool = true,
                                   didFold: (borrowing StoreState, _ events: Int) -> Bool = { _, _ in true }) throws(JournalFoldError) {
        let large = releasingFreedMemory && FreedMemory.isLargeFold(reading: reader.remainingBytes)
        if CommitReadAhead.worthwhile(for: reader), var readAhead = CommitReadAhead(reader, read: Self.readCreatingRecords) {
            try fold(&readAhead, through: last, didFold: didFold)
        } else {
            var reader = reader
            try fold(&reader, through: last, didFold: didFold)
        }
        if large { FreedMemory.release() }
    }

    /// How the read-ahead thread reads each commit for the fold (see
    /// ``CommitReadAhead/Read``): its `.create` events taken out of its
    /// events, each with the object's record decoded straight from the
    /// journal (``DecodedCreates``). The fold folds them in their places
    /// (``foldInPlace(_:creates:)``); a commit read so, missing its
    /// creates, is for it alone.
    @Sendable static func readCreatingRecords(_ reader: inout CommitReader) throws(JournalError) -> CommitReadAhead.ReadCommit? {
        var creates = DecodedCreates()
        guard let commit = try reader.next(creates: &creates) else { return nil }
        return CommitReadAhead.ReadCommit(commit, prepared: creates.creates, events: commit.events.count + creates.creates.count)
    }

    /// ``fold(_:through:didFold:)`` with each commit's change set: `visit`
    /// gets the commit, the states before and after it and what changed.
    ///
    /// - Complexity: O(events folded).
    mutating func walk<Failure: Error>(
        _ reader: inout CommitReader, through last: UInt64,
        failure: (JournalFoldError) -> Failure,
        _ visit: (Commit, StoreState, StoreState, ChangeSet) throws(Failure) -> Bool
    ) throws(Failure) {
        try readCommits(&reader, through: last, failure: failure) { (state, commit, _) throws(Failure) in
            let (after, changes): (StoreState, ChangeSet)
            do throws(FoldError) { (after, changes) = try state.applying(commit) } catch { throw failure(.fold(error)) }
            let proceed = try visit(commit, state, after, changes)
            state = after
            return proceed
        }
    }

    private mutating func readCommits<Source: CommitSource>(_ reader: inout Source, through last: UInt64,
                                      _ step: (inout StoreState, Commit, ContiguousArray<DecodedCreate>) throws(JournalFoldError) -> Bool) throws(JournalFoldError) {
        try readCommits(&reader, through: last, failure: { $0 }, step)
    }

    private mutating func readCommits<Source: CommitSource, Failure: Error>(
        _ reader: inout Source, through last: UInt64, failure: (JournalFoldError) -> Failure,
        _ step: (inout StoreState, Commit, ContiguousArray<DecodedCreate>) throws(Failure) -> Bool
    ) throws(Failure) {
        while version < last {
            let next: Commit?
            do { next = try reader.next() } catch { throw failure(.journal(error)) }
            let creates = reader.takePrepared() as? ContiguousArray<DecodedCreate> ?? []
            guard let commit = next, try step(&self, commit, creates) else { return }
        }
    }
}
