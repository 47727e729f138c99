/// Reads commits from a ``Journal`` one at a time, throwing on failure.
///
/// Reads through a buffer (the file is never loaded whole) and checks every
/// record's checksum, decoding and version as it goes. Yields the commits
/// that were in the journal when the reader was made. After an error, every
/// later call throws the same error.
public struct CommitReader: Sendable {
    /// Kept so that the journal is not closed (its deinit closes it) while
    /// a reader made from a temporary `Journal` still reads its storage.
    private let journal: Journal
    private var cursor: RecordCursor
    /// The version the next call to ``next()`` returns.
    public private(set) var nextVersion: UInt64
    /// The last version this reader yields.
    public let lastVersion: UInt64
    private var error: JournalError?

    /// How many bytes of records are left to read. O(1).
    var remainingBytes: Int { cursor.end - cursor.offset }

    /// A reader from `version`. If finding it fails (it lies in a trusted
    /// prefix that turns out damaged), the first ``next()`` throws why.
    init(journal: Journal, from version: UInt64) {
        self.journal = journal
        let core = journal.core
        nextVersion = version
        do throws(JournalError) {
            let range = try core.readRange(from: version)
            cursor = RecordCursor(storage: core.storage, from: range.start, to: range.end)
            lastVersion = range.lastVersion
            error = range.isClosed ? .closed : nil
        } catch {
            cursor = RecordCursor(storage: core.storage, from: 0, to: 0)
            lastVersion = core.state.withLock { $0.lastVersion }
            self.error = error
        }
    }

    /// The next commit, or `nil` after the last one.
    /// - Throws: ``JournalError/damaged(offset:lastGoodVersion:reason:)`` if the
    ///   storage no longer holds what the journal wrote;
    ///   ``JournalError/writtenByNewerVersion(version:offset:detail:)`` for a
    ///   commit a newer Chronicle wrote; ``JournalError/io(operation:errno:path:)``.
    /// - Complexity: O(size of the commit).
    public mutating func next() throws(JournalError) -> Commit? {
        var keep = KeepCreateValues()
        return try next(creates: &keep)
    }

    /// ``next()``, decoding the commit's `.create` events' values into
    /// `creates` rather than into the events (see ``CreateValuesReceiver``).
    /// When it throws, `creates` may hold some of the commit's values.
    mutating func next<Creates: CreateValuesReceiver>(creates: inout Creates) throws(JournalError) -> Commit? {
        if let error { throw error }
        guard nextVersion <= lastVersion else { return nil }
        do throws(JournalError) {
            let lastGood = nextVersion - 1
            switch try cursor.next(creates: &creates) {
            case .record(let commit, let start):
                guard commit.version == nextVersion else {
                    throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood,
                                   reason: "the record holds version \(commit.version) where version \(nextVersion) belongs")
                }
                nextVersion += 1
                return commit
            case .end:
                throw .damaged(offset: UInt64(cursor.offset), lastGoodVersion: lastGood, reason: "the journal ends before version \(nextVersion)")
            case .badFrame(let start, let reason), .badPayload(let start, let reason):
                throw .damaged(offset: UInt64(start), lastGoodVersion: lastGood, reason: reason)
            case .newerPayload(let start, let reason):
                throw .writtenByNewerVersion(version: nextVersion, offset: UInt64(start), detail: reason)
            }
        } catch {
            self.error = error
            throw error
        }
    }
}

extension Journal {
    /// The commits of a journal from some version on, as a `Sequence`.
    ///
    /// Made by ``Journal/commits(from:)``. Each iterator streams from storage
    /// and yields the commits present when it was made. Iteration cannot throw:
    /// on a read failure it ends early and sets ``Iterator/error``.
    public struct Commits: Sequence, Sendable {
        /// Kept alive with the sequence: `Array(try Journal(contentsOf: url).commits())`
        /// holds the journal in no variable.
        let journal: Journal
        let from: UInt64

        /// 0: reading can fail part way (iteration then ends early, see
        /// ``Iterator/error``), so the sequence promises no count. A count
        /// it then fell short of would be a broken promise that `Array`
        /// traps on.
        public var underestimatedCount: Int { 0 }

        /// A new iterator, reading from the first version of the sequence.
        public func makeIterator() -> Iterator {
            Iterator(reader: CommitReader(journal: journal, from: from))
        }

        /// Yields commits until the end, or until reading fails.
        public struct Iterator: IteratorProtocol, Sendable {
            var reader: CommitReader
            /// Why iteration ended early, if it did; `nil` while all is well.
            public private(set) var error: JournalError?

            /// The next commit, or `nil` at the end or after a read failure (see ``error``).
            /// - Complexity: O(size of the commit).
            public mutating func next() -> Commit? {
                do {
                    return try reader.next()
                } catch {
                    self.error = error
                    return nil
                }
            }
        }
    }
}
