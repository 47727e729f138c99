/// An event of the source journal that a ``Replay`` could not apply, because
/// commits it excluded changed what the event meets (an edit of an object
/// that, without them, never existed), or because it was never valid.
public struct SkippedEvent: Sendable, Hashable {
    /// The version of the source commit that holds the event.
    public let version: UInt64
    /// The event's position in that commit.
    public let eventIndex: Int
    /// The event, as the source journal has it.
    public let event: Event
    /// Why it does not apply.
    public let error: FoldError
    /// The excluded commit it is blamed on: the latest excluded commit that
    /// touched the same object (or, failing that, the same type), else the
    /// latest excluded commit before it; `nil` when no commit was excluded before it.
    public let cause: UInt64?
}

/// What one ``Replay/step()`` folded.
public struct ReplayStep: Sendable {
    /// The source commit.
    public let commit: Commit
    /// The version it became in the replaying store (the same as the
    /// source's, unless the replaying store was written to).
    public let version: UInt64
    /// Whether the commit was excluded: the replaying store got an empty commit in its place.
    public let isExcluded: Bool
    /// What the commit changed in the replaying store.
    public let changes: ChangeSet
    /// The commit's events that did not apply.
    public let skippedEvents: [SkippedEvent]
}
