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
        case .sharedWithOtherProcesses(let operation):
            "\(operation) was refused: another process (or another Store in this process) has the journal open, and "
                + "\(operation) needs it alone. Close the store in the other processes first; nothing was changed."
        }
    }
}
