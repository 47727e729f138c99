import Synchronization
import Testing

/// The text of an issue's comments, for `withKnownIssue { … } matching: { … }`.
func text(of issue: Issue) -> String {
    issue.comments.map(\.rawValue).joined(separator: "\n")
}

/// How many issues a `matching:` closure saw, to check a failure records one.
final class IssueCount: Sendable {
    let count = Mutex(0)
}
