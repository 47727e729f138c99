/// Errors a ``Store`` throws.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// The write's events did not apply (a duplicate primary key, say);
    /// nothing was committed.
    case rejected(FoldError)
    /// The schema of a model class is invalid or does not match the journal.
    case schema(SchemaError)
    /// The journal could not be opened, read or appended to.
    case journal(JournalError)
    /// A version that the store does not have.
    case versionOutOfRange(requested: UInt64, available: ClosedRange<UInt64>)
    /// An operation a frozen store or object does not allow.
    case frozen(String)
    /// The operation needs the journal file to itself, but another process
    /// (or another store in this process) has it open: `Store.compact`
    /// replaces the file, and the others would go on appending to the old one.
    case sharedWithOtherProcesses(operation: String)
    /// A ``Replay`` reached the migration of source commit `migration`,
    /// which set values of an object (of type `type`) that the excluded
    /// commit `excluded` changed before it. The migration closure computed
    /// those values from what that commit wrote, and cannot run again: its
    /// recorded values, replayed without the commit, would be values that
    /// never existed. The replay stops before the migration.
    case migrationDependsOnExcludedCommit(migration: UInt64, excluded: UInt64, type: String)

    /// The error a fold of the journal's commits stopped with.
    init(_ failure: JournalFoldError) {
        switch failure {
        case .journal(let error): self = .journal(error)
        case .fold(let error): self = .rejected(error)
        }
    }

    /// A readable description, for logs and test failures.
    public var description: String {
        switch self {
        case .rejected(let error): "the write was rolled back: \(error)"
        case .schema(let error): "schema error: \(error)"
        case .journal(let error): "journal error: \(error)"
        case let .versionOutOfRange(requested, available):
            "version \(requested) does not exist; this store has versions \(available.lowerBound)...\(available.upperBound)"
        case .frozen(let what): "\(what) is frozen and cannot change"
        case let .migrationDependsOnExcludedCommit(migration, excluded, type):
            "the migration in commit \(migration) set values of a \(type) that the excluded commit \(excluded) changed: "
                + "the migration computed them from what commit \(excluded) wrote, so replaying it without that commit would give "
                + "values that never existed. The replay stopped before commit \(migration); replay through version \(migration - 1) "
                + "only, or exclude no commit before the migration that changed the objects it sets"
        case .sharedWithOtherProcesses(let operation):
            "\(operation) was refused: another process (or another Store in this process) has the journal open, and "
                + "\(operation) needs it alone. Close the store in the other processes first; nothing was changed."
        }
    }
}
