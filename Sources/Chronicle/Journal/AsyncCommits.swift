/// The commits of a journal from some version on, as an `AsyncSequence`
/// whose failure type is ``JournalError``.
///
/// Made by ``Journal/asyncCommits(from:)``. Each iterator yields the commits
/// present when it was made. Reading is ordinary blocking file I/O done in
/// small pieces, one commit a step. A cancelled task's iteration ends (returns
/// `nil`) at the next step.
public struct AsyncCommits: AsyncSequence, Sendable {
    /// The sequence yields commits.
    public typealias Element = Commit
    /// Reading fails with a ``JournalError``.
    public typealias Failure = JournalError

    /// Kept alive with the sequence (see ``Journal/Commits``).
    let journal: Journal
    let from: UInt64

    /// A new iterator, reading from the first version of the sequence.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(reader: CommitReader(journal: journal, from: from))
    }

    /// Yields commits until the end, throwing if reading fails.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var reader: CommitReader

        /// The next commit, `nil` at the end or once the task is cancelled.
        /// - Complexity: O(size of the commit).
        public mutating func next() async throws(JournalError) -> Commit? {
            if Task.isCancelled { return nil }
            return try reader.next()
        }

        /// The next commit, `nil` at the end or once the task is cancelled.
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(JournalError) -> Commit? {
            if Task.isCancelled { return nil }
            return try reader.next()
        }
    }
}
