import Chronicle
import Testing

/// Runs `body` and expects the commits it makes to `store` to change exactly
/// `changes` — no more, no less (or, with `exhaustivity: .off`, at least
/// those) — recording one issue at the caller that lists every difference
/// otherwise.
///
/// ```swift
/// try expectCommit(in: store, changes: [.set(person, \.firstName, to: "Bob")]) {
///     try store.write { person.firstName = "Bob" }
/// }
/// ```
///
/// The comparison is of net changes: every commit made while `body` runs
/// (by any task) is folded, and each object's state after is compared with
/// its state before. A property set and set back does not count; an object
/// created and deleted in between does not either. Schema commits are
/// ignored, and so are creations and deletions of embedded objects (they go
/// with their parent); property changes of embedded objects count.
///
/// A failure reads:
///
/// ```text
/// Commits did not change what was expected (2 differences):
///   Person#1.firstName: expected "Bob", actual "Carl" (was "Ann")
///   unexpected: Person#1.lastName: "" → "Smith"
/// Committed (version 3):
///   set Person#1.firstName: "Ann" → "Carl"
///   set Person#1.lastName: "" → "Smith"
/// ```
///
/// Objects the code under test creates itself are named by type and values:
///
/// ```swift
/// try expectCommit(in: store, changes: [.created(Entry.self, [\.amount: 250, \.bookedAt: .any])]) {
///     try ledger.book(250)
/// }
/// ```
///
/// and a missing one reads `expected a creation of Entry with amount: 250
/// that never happened`.
///
/// If `body` throws, the error is rethrown and nothing is checked.
///
/// - Parameters:
///   - store: The store `body` writes to.
///   - changes: Every change `body` should make, in any order.
///   - exhaustivity: `.on` (the default) fails on changes not in
///     `changes`; `.off` checks only those listed.
///   - sourceLocation: Where a failure is reported; the caller by default.
///   - body: The code under test.
/// - Returns: What `body` returns.
@discardableResult
public func expectCommit<R>(in store: Store, changes: [ExpectedChange], exhaustivity: Exhaustivity = .on,
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () throws -> R) rethrows -> R {
    let before = store.packageCommittedState
    let result = try body()
    CommitExpectation.check(store: store, before: before, expected: changes, exhaustivity: exhaustivity,
                            sourceLocation: sourceLocation)
    return result
}

/// The asynchronous form of
/// ``expectCommit(in:changes:exhaustivity:sourceLocation:_:)-(_,_,_,_,()throws->R)``,
/// for a body that awaits (`asyncWrite`, a view model's async method).
///
/// - Parameters:
///   - store: The store `body` writes to.
///   - changes: Every change `body` should make, in any order.
///   - exhaustivity: `.on` (the default) fails on changes not in
///     `changes`; `.off` checks only those listed.
///   - sourceLocation: Where a failure is reported; the caller by default.
///   - isolation: The caller's actor, inherited by `body`.
///   - body: The code under test.
/// - Returns: What `body` returns.
@discardableResult
public func expectCommit<R>(in store: Store, changes: [ExpectedChange], exhaustivity: Exhaustivity = .on,
                            sourceLocation: SourceLocation = #_sourceLocation,
                            isolation: isolated (any Actor)? = #isolation,
                            _ body: () async throws -> R) async rethrows -> R {
    let before = store.packageCommittedState
    let result = try await body()
    CommitExpectation.check(store: store, before: before, expected: changes, exhaustivity: exhaustivity,
                            sourceLocation: sourceLocation)
    return result
}

