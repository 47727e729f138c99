/// How hard a ``Journal`` works to make an appended commit survive a crash.
///
/// Whatever the setting, a crash never leaves part of a commit: a reopened
/// journal holds a prefix of the commits. The setting decides how long that
/// prefix is guaranteed to be.
public enum Durability: Sendable, Hashable {
    /// Every commit is on stable storage before ``Journal/append(_:)`` returns
    /// (`fdatasync` on Linux, `fcntl(F_FULLFSYNC)` on Apple platforms).
    /// Concurrent committers share one sync (group commit): after a sync,
    /// the next one waits briefly (at most twice the last sync's duration)
    /// for the committers it released to commit again, so that one sync
    /// covers them all. A lone committer never waits.
    case full
    /// Commits are synced together, at the latest `maxDelay` after the first
    /// unsynced one was written or once `maxCommits` are unsynced, whichever
    /// comes first. A crash can lose commits whose append returned within that
    /// window, never part of one.
    case batched(maxDelay: Duration, maxCommits: Int)
    /// Commits are written to the file but never synced, except by
    /// ``Journal/sync()``. Survives a process crash; an operating-system crash or
    /// power loss can lose any number of recent commits (never part of one).
    case none
}
