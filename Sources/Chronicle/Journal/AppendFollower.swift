#if os(Linux)
import Foundation
import Synchronization

/// Linux: a thread (of ``FollowerThreads``) that sleeps on the append
/// count of a journal's shared area (a futex,
/// ``SharedJournalArea/sleepUntilAppend(after:timeout:)``) and calls a
/// handler when another journal of the file appended: how a store follows
/// the commits other processes append.
///
/// **Why not the file's inotify events** (``FileChangeWatcher``, which a
/// read-only follower still uses): an inotify watch makes every `pwrite`
/// to the file wake each watcher from inside the system call, and a store
/// appends holding the journal's process lock, so every other process's
/// next commit waited for those wake-ups. Here the writer wakes the
/// followers after it releases the lock (``SharedJournalArea/didAppend()``),
/// and only if a follower other than its own journal's sleeps: a store
/// alone with its file is never woken by its own commits.
///
/// **While its own store writes** the follower is not woken by the other
/// processes' appends: the handler returns `false` when the store is busy
/// with a write of its own (whose catch-up, or the next one's, folds the
/// others' commits before it appends), and the thread then sleeps `retry`,
/// twice as long after each further such look up to `longestRetry`,
/// *unregistered* (an append does not end that sleep, and a writer that
/// finds no registered follower of another journal makes no `futex` call
/// at all) and looks again. So a process that writes back to back is not
/// woken once for each commit of the others to wait on its own store;
/// the price is that a commit appended during that sleep reaches this
/// process's observers up to `longestRetry` later if its own writes stop
/// then.
///
/// **Semantics.**
/// - The handler runs on the follower's thread, once for each wake-up,
///   whatever woke it: a look, not a promise of something new (the caller
///   catches up, which costs O(1) when nothing is new). It returns
///   whether it is done; `false` (the store is busy) makes the thread look
///   again after a pause, without sleeping on the append count.
/// - No append is missed: the thread notes the count before each call of
///   the handler and sleeps only while the count is still that, so an
///   append after the handler looked ends the sleep at once.
/// - Without any append it still looks every `fallback` (a writer killed
///   between its append and its wake-up, or a build of Chronicle that does
///   not wake followers).
/// - ``cancel()`` wakes the thread, which then ends the job and parks for
///   the next follower; a handler call under way finishes first.
final class AppendFollower: CommitFollower, Sendable {
    private let area: SharedJournalArea
    private let flags = Flags()

    /// What the thread and the follower share.
    private final class Flags: Sendable {
        let stopped = Atomic<Bool>(false)
        let wokenUp = Atomic<Int>(0)
        let sleeps = Atomic<Int>(0)
        let busyLooks = Atomic<Int>(0)
    }

    /// How many times a wake-up that found new appends ended a sleep (for
    /// tests): not the fallback, not a wake-up with no append (another
    /// journal's follower ending), and not an append that came before the
    /// sleep began.
    var wakeUps: Int { flags.wokenUp.load(ordering: .relaxed) }

    /// How many times the thread began a sleep (for tests: a wake-up has
    /// been handled once this grows and the thread sleeps again).
    var sleeps: Int { flags.sleeps.load(ordering: .relaxed) }

    /// How many times the handler returned `false`, finding its store busy
    /// (for tests).
    var busyLooks: Int { flags.busyLooks.load(ordering: .relaxed) }

    /// Starts following, on a thread of ``FollowerThreads/shared``.
    /// `retry`: how long it sleeps, unregistered, after a handler call that
    /// returned `false`, doubled after each further one up to `longestRetry`.
    init(area: SharedJournalArea, fallback: Duration, retry: Duration = .milliseconds(1),
         longestRetry: Duration = .milliseconds(8), onChange: @escaping @Sendable () -> Bool) {
        self.area = area
        // A thread of the process's pool (at the lowest priority, as the
        // inotify watcher's thread), not one of its own: see `FollowerThreads`.
        FollowerThreads.shared.run { [area, flags] in
            var seen = area.appendCount
            var busy = false
            var pause = retry
            while !flags.stopped.load(ordering: .acquiring) {
                let woken: Bool
                if busy {
                    // Not on the append count: the others' appends meanwhile
                    // are the store's own writes' to fold.
                    Thread.sleep(forTimeInterval: Double(pause / .nanoseconds(1)) / 1e9)
                    pause = min(pause * 2, longestRetry)
                    woken = false
                } else {
                    pause = retry
                    flags.sleeps.wrappingAdd(1, ordering: .relaxed)
                    woken = area.sleepUntilAppend(after: seen, timeout: fallback)
                }
                if flags.stopped.load(ordering: .acquiring) { break }
                let count = area.appendCount
                // Counted only when it found appends: a closing journal's
                // follower wakes every follower of the file on its way out.
                if woken && count != seen { flags.wokenUp.wrappingAdd(1, ordering: .relaxed) }
                seen = count
                busy = !onChange()
                if busy { flags.busyLooks.wrappingAdd(1, ordering: .relaxed) }
            }
        }
    }

    deinit { cancel() }

    /// Ends the thread: once it wakes (now, unless it is not asleep yet; then
    /// within the fallback interval) it calls the handler no more.
    func cancel() {
        guard !flags.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        area.wakeFollowers()
    }
}
#endif
