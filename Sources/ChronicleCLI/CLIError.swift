import Chronicle

/// What ends a `chronicle` run early, and its exit status.
enum CLIError: Error {
    /// Bad arguments: the message, then the subcommand's usage; exit 64.
    case usage(String)
    /// No command, or one the tool does not have (`nil`: none given): the
    /// tool's usage; exit 64.
    case unknownCommand(String?)
    /// The file does not exist; exit 66.
    case missingFile(String)
    /// The journal (or input) is damaged, not a journal, or written by a
    /// newer Chronicle; exit 65.
    case damaged(String)
    /// Anything else; exit 1.
    case failed(String)

    /// The exit status (sysexits.h conventions).
    var status: Int32 {
        switch self {
        case .usage, .unknownCommand: 64
        case .missingFile: 66
        case .damaged: 65
        case .failed: 1
        }
    }

    var message: String {
        switch self {
        case .usage(let text), .missingFile(let text), .damaged(let text), .failed(let text): text
        case .unknownCommand(let name?): "unknown command \"\(name)\""
        case .unknownCommand(nil): "no command given"
        }
    }

    /// The CLI error for a store error met while reading `path`.
    static func from(_ error: StoreError, path: String) -> CLIError {
        switch error {
        case .journal(let journalError): from(journalError, path: path)
        case .rejected(let fold): .damaged("\(path): a commit does not fold: \(fold)")
        case .versionOutOfRange: .usage("\(error)")
        default: .failed("\(path): \(error)")
        }
    }

    /// The CLI error for a journal error met while reading `path`.
    static func from(_ error: JournalError, path: String) -> CLIError {
        switch error {
        case .damaged, .notAJournal, .emptyFile, .unsupportedFormatVersion, .writtenByNewerVersion: .damaged("\(path): \(error)")
        default: .failed("\(path): \(error)")
        }
    }
}
