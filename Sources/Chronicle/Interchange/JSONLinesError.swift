/// Why JSON Lines input could not be read or imported. Decoding never
/// crashes on malformed input: it throws one of these.
public enum JSONLinesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Line `line` is not valid JSON (or not UTF-8); `column` is the byte where parsing failed (1-based).
    case syntax(line: Int, column: Int, reason: String)
    /// Line `line` is JSON but not a commit in the documented mapping; `path`
    /// names the offending member, such as `events[2].set.value`.
    case invalidCommit(line: Int, path: String, reason: String)
    /// Appending line `line`'s commit to the journal failed (a version that
    /// does not follow, say).
    case journal(line: Int, JournalError)
    /// The input could not be read.
    case unreadable(String)

    /// What is wrong, and where.
    public var description: String {
        switch self {
        case let .syntax(line, column, reason): "line \(line), column \(column): not JSON: \(reason)"
        case let .invalidCommit(line, path, reason): "line \(line), \(path): \(reason)"
        case let .journal(line, error): "line \(line): \(error)"
        case let .unreadable(reason): "cannot read the input: \(reason)"
        }
    }
}
