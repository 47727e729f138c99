import Chronicle
import Foundation

// A tiny task tracker: the history the example travels through.

final class Task: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted var assignee: Member?
}
extension Task: @unchecked Sendable {}

final class Member: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var role = "developer"
}
extension Member: @unchecked Sendable {}

// The next release of the app: a task's `done` flag became a `status`.
// (Nested only so that both releases fit in one example; an app has one.)
enum Release2 {
    final class Task: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var status = "open"
        @Persisted var assignee: Member?
    }
}
extension Release2.Task: @unchecked Sendable {}
