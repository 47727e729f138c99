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
