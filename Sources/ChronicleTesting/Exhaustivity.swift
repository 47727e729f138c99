/// Whether ``expectCommit(in:changes:exhaustivity:sourceLocation:_:)-(_,_,_,_,()throws->R)``
/// fails on changes the expectation does not list.
public enum Exhaustivity: Sendable {
    /// Every change the commits made must be listed (the default): an
    /// unlisted change fails the test as `unexpected: …`.
    case on
    /// Only the listed changes are checked; others are allowed — for a test
    /// about one effect of code that does more (as with TCA's `TestStore`).
    case off
}
