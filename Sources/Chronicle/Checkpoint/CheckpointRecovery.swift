/// What a lazily read checkpoint falls back on when one of its blocks turns
/// out damaged after the open: the journal it was made from, folded up to
/// the checkpoint's version — the state the checkpoint should have held.
///
/// The fold runs at most once (its result is kept for every damaged table
/// of the same checkpoint). It needs the journal's history up to the
/// checkpoint's version; compacting the store reads every object first, so
/// every table of the checkpoint is built (or recovered) before that
/// history can go.
final class CheckpointRecovery: Sendable {
    private let journal: Journal
    private let version: UInt64
    private let folded = Locked<StoreState?>(nil)

    /// Recovery from `journal`, for a checkpoint at `version`.
    init(journal: Journal, version: UInt64) {
        self.journal = journal
        self.version = version
    }

    /// Table `index` of the state at the checkpoint's version, built from
    /// the journal, checked as the fold checks it. O(history) the first time.
    ///
    /// A checkpoint whose type at `index` is not the journal's (only a
    /// crafted file: a damaged one fails its checksums) gets an empty table
    /// of its own type with its next key: such a file gives a state other
    /// than the journal's anyway, and this one keeps every invariant.
    ///
    /// - Precondition: the journal still holds, undamaged, the history up
    ///   to the checkpoint's version. When both it and the checkpoint are
    ///   damaged there is nothing left to read the state from.
    func table(_ index: Int, of schema: TypeSchema, nextKey: Int64) -> Table {
        folded.withLock { folded in
            if folded == nil { folded = fold() }
            let state = folded.unsafelyUnwrapped
            guard state.schema.indices.contains(index), state.schema[index] == schema,
                  state.tables[index].nextKey == nextKey else {
                var empty = Table(schema: schema)
                empty.nextKey = nextKey
                return empty
            }
            return state.tables[index]
        }
    }

    private func fold() -> StoreState {
        let where_ = journal.fileURL?.path ?? "an in-memory journal"
        precondition(journal.baseVersion < version,
                     "Chronicle: a checkpoint file at version \(version) is damaged and the journal (\(where_)) no longer "
                         + "holds that version's history (compacted from \(journal.baseVersion)); delete the checkpoint file and reopen")
        do {
            return try fold(journal)
        } catch JournalFoldError.journal(.closed) {
            // The store was closed since (a frozen state outlives it): read the same file again.
            if let url = journal.fileURL, let reopened = try? Journal(contentsOf: url),
               reopened.fileIdentifier == journal.fileIdentifier, reopened.baseVersion < version,
               let state = try? fold(reopened) {
                return state
            }
            preconditionFailure("Chronicle: a checkpoint file is damaged, and its journal (\(where_)) can no longer be read "
                                    + "to rebuild it; delete the checkpoint file and reopen the store")
        } catch JournalFoldError.journal(let error) where error.isWrittenByNewerVersion {
            // Not damage: say what it is.
            preconditionFailure("Chronicle: a checkpoint file is damaged, and its journal cannot be read to rebuild it: \(error)")
        } catch {
            preconditionFailure("Chronicle: a checkpoint file is damaged, and so is its journal (\(where_)): \(error). "
                                    + "Restore the journal from a backup; `chronicle verify` shows where it is damaged")
        }
    }

    /// The state at the checkpoint's version, folded from `journal`.
    private func fold(_ journal: Journal) throws -> StoreState {
        var state = StoreState()
        try state.foldReadingAhead(journal.reader(from: journal.baseVersion + 1), through: version)
        guard state.version == version else { throw FoldError.Reason.versionMismatch(expected: version, actual: state.version) }
        return state
    }
}
