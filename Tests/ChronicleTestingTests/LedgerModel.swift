import Chronicle
import Foundation

// A ledger, the model of the value-printing and commit-matcher tests.

final class Entry: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var amount = 0
    @Persisted var memo = ""
    @Persisted var bookedAt = ModelClock.now()   // the test clock's time in tests
    @Persisted var receipt: Data?
    @Persisted var rate = 0.0
}
extension Entry: @unchecked Sendable {}

/// An entry of `amount` with `memo`.
func entry(_ amount: Int, memo: String = "") -> Entry {
    let entry = Entry()
    entry.amount = amount
    entry.memo = memo
    return entry
}
