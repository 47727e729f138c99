#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
internal import ChronicleSystem
#endif
import Foundation
import Synchronization

/// A few words every process sharing a journal file reads and writes, in a
/// file next to it (`<journal name>.shared`) that each maps into memory:
/// how far the journal is written and how far it is synced, which lets the
/// processes share one sync the way a process's writer threads do
/// (``syncCovering(_:fileID:sync:)``); on Linux, futexes that processes
/// sleep on while they wait for a sync, gather commits for one, or follow
/// the others' appends (``AppendFollower``); and counters that only grow,
/// which the store keeps its object keys in (see ``Journal/sharedCounter(_:)``).
///
/// The file also carries the *sync lock*, an exclusive `flock` that the
/// process syncing the journal holds while it syncs (a file of its own, for
/// the reason ``ProcessWriteLock`` gives: one `flock` a description).
///
/// Layout (native byte order, every word aligned to its size):
///
/// | offset | bytes | what |
/// |---|---|---|
/// | 0 | 16 | the identifier of the journal file the ends are for |
/// | 16 | 8 | written end: the end of the last whole record a process appended |
/// | 24 | 8 | synced end: what a process's sync made durable, at least |
/// | 32 | 4 | sync sequence: raised as each sync ends (a futex word) |
/// | 36 | 4 | bell: raised after an append while a sync gathers (a futex word) |
/// | 40 | 4 | commits appended (wrapping; a futex word stores' followers sleep on) |
/// | 44 | 4 | commits appended when the last sync started (wrapping) |
/// | 48 | 2 | expected commits: how many the last sync saw (see gathering) |
/// | 50 | 2 | how long the last sync took, in microseconds (at most 65,535) |
/// | 52 | 4 | how many followers sleep on the commits appended |
/// | 56 | 4 | how many processes sleep on the sync sequence |
/// | 60 | 4 | flags: 1 while a sync gathers (an append rings the bell); 2 once an append follows another journal's since the last sync started |
/// | 64 | 8 × n | counter `i` at `64 + 8 i` |
///
/// Offsets 32–63 are used on Linux only (futexes); elsewhere they stay zero.
///
/// The ends are only trusted for the file whose identifier is there: a
/// sharing open writes its file's identifier (and the end it synced) under
/// the process lock when another file was there before (compaction
/// replaced the journal, or the store was deleted and made again). The
/// counters are never reset: they only ever need to be high enough.
///
/// `@unchecked Sendable`: `base` points at a shared mapping that never moves
/// or goes away before `deinit`; its words are read and written only
/// through atomics, or (the identifier) under the process lock and the
/// sync lock.
final class SharedJournalArea: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let base: UnsafeMutableRawPointer

    /// The size mapped: room for ``counterCapacity`` counters.
    static let mappedSize = 64 * 1024
    private static let writtenEndOffset = 16
    private static let syncedEndOffset = 24
    private static let syncSequenceOffset = 32
    private static let bellOffset = 36
    private static let commitsOffset = 40
    private static let commitsAtSyncStartOffset = 44
    private static let expectedCommitsOffset = 48
    private static let lastSyncOffset = 50
    private static let followersOffset = 52
    private static let sleepersOffset = 56
    private static let flagsOffset = 60
    private static let gatheringFlag: UInt32 = 1, severalWritersFlag: UInt32 = 2
    private static let countersOffset = 64
    /// How many counters the mapping holds; counters beyond it are read and
    /// written with `pread`/`pwrite` under the process lock.
    static let counterCapacity = (mappedSize - countersOffset) / 8

    /// The longest a sync gathers, however long the last one took.
    private let gatherWindowLimit: Duration
    /// The commit count this journal's last append raised the shared one
    /// to (or found, at open): another journal appended since if the next
    /// append's is not one more.
    private let lastCommit: Atomic<UInt32>
    /// This journal's followers asleep on the append count: its own appends
    /// need not wake them (its store has those commits already).
    private let ownFollowersSleeping = Atomic<UInt32>(0)

    /// Opens (creating it `0600` if absent) and maps the area of the
    /// journal at `journalURL`. `gatherWindowLimit`: the longest a sync
    /// waits for other processes' commits (tests lengthen it).
    /// - Throws: ``JournalError/io(operation:errno:path:)``.
    init(journalURL: URL, gatherWindowLimit: Duration = GroupCommit.maxGatherWindow) throws(JournalError) {
        self.gatherWindowLimit = gatherWindowLimit
        path = Self.path(for: journalURL)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(operation: "open shared area", errno: errno, path: path) }
        var info = stat()
        if fstat(fd, &info) != 0 || (Int(info.st_size) < Self.mappedSize && ftruncate(fd, off_t(Self.mappedSize)) != 0) {
            let code = errno
            _ = closeDescriptor(fd)
            throw .io(operation: "size shared area", errno: code, path: path)
        }
        guard let mapped = mmap(nil, Self.mappedSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), mapped != MAP_FAILED else {
            let code = errno
            _ = closeDescriptor(fd)
            throw .io(operation: "mmap shared area", errno: code, path: path)
        }
        self.fd = fd
        base = mapped
        lastCommit = Atomic(mapped.advanced(by: Self.commitsOffset).assumingMemoryBound(to: Atomic<UInt32>.self)
            .pointee.load(ordering: .sequentiallyConsistent))
    }

    deinit {
        munmap(base, Self.mappedSize)
        _ = closeDescriptor(fd)
    }

    /// Where the area of the journal at `journalURL` is.
    static func path(for journalURL: URL) -> String { journalURL.path + ".shared" }

    private func word(at offset: Int) -> UnsafeMutablePointer<Atomic<UInt64>> {
        (base + offset).assumingMemoryBound(to: Atomic<UInt64>.self)
    }

    private func halfWord(at offset: Int) -> UnsafeMutablePointer<Atomic<UInt32>> {
        (base + offset).assumingMemoryBound(to: Atomic<UInt32>.self)
    }

    private func shortWord(at offset: Int) -> UnsafeMutablePointer<Atomic<UInt16>> {
        (base + offset).assumingMemoryBound(to: Atomic<UInt16>.self)
    }

    // MARK: Ends

    /// Makes the ends about the file `fileID` whose data (up to `end`) was
    /// just synced: kept if they already are (another process shares the
    /// file), otherwise replaced. Call holding the process lock.
    ///
    /// Ends past `end` for the same identifier are replaced too: whole
    /// records never leave a file, so such a file was put back shorter (a
    /// copy restored over it), and ends kept from the longer one would let
    /// a commit into that range count as synced without a sync.
    func adopt(fileID: UUID, syncedEnd end: Int) {
        withSyncLock {
            if stores(fileID), word(at: Self.writtenEndOffset).pointee.load(ordering: .sequentiallyConsistent) <= UInt64(end) {
                word(at: Self.writtenEndOffset).pointee.max(UInt64(end), ordering: .sequentiallyConsistent)
                word(at: Self.syncedEndOffset).pointee.max(UInt64(end), ordering: .sequentiallyConsistent)
            } else {
                // The identifier goes to zeros first and to the new one
                // last: a look without the lock (`isCovered`) that read
                // these ends finds an identifier that is not the old file's.
                word(at: 0).pointee.store(0, ordering: .sequentiallyConsistent)
                word(at: 8).pointee.store(0, ordering: .sequentiallyConsistent)
                word(at: Self.writtenEndOffset).pointee.store(UInt64(end), ordering: .sequentiallyConsistent)
                word(at: Self.syncedEndOffset).pointee.store(UInt64(end), ordering: .sequentiallyConsistent)
                let (high, low) = Self.words(of: fileID)
                word(at: 0).pointee.store(high, ordering: .sequentiallyConsistent)
                word(at: 8).pointee.store(low, ordering: .sequentiallyConsistent)
            }
        }
    }

    /// A file identifier as the two words the area stores it in.
    private static func words(of fileID: UUID) -> (UInt64, UInt64) {
        withUnsafeBytes(of: fileID.uuid) { ($0.load(fromByteOffset: 0, as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self)) }
    }

    /// Whether the identifier stored is `fileID` (each word read atomically).
    private func stores(_ fileID: UUID) -> Bool {
        let (high, low) = Self.words(of: fileID)
        return word(at: 0).pointee.load(ordering: .sequentiallyConsistent) == high
            && word(at: 8).pointee.load(ordering: .sequentiallyConsistent) == low
    }

    /// Records that the file's data is whole up to `end` (a record was just
    /// appended there). Call holding the process lock, after the write.
    func didWrite(upTo end: Int) {
        word(at: Self.writtenEndOffset).pointee.max(UInt64(end), ordering: .releasing)
        #if os(Linux)
        let commit = halfWord(at: Self.commitsOffset).pointee.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        // Another journal appended since this one last did: say so.
        let flags = halfWord(at: Self.flagsOffset)
        if lastCommit.exchange(commit, ordering: .relaxed) &+ 1 != commit {
            flags.pointee.bitwiseOr(Self.severalWritersFlag, ordering: .sequentiallyConsistent)
        }
        #endif
    }

    /// Tells the other processes about appends this journal made: rings
    /// the bell if a sync is gathering, and wakes the stores' followers if
    /// any but this journal's own sleeps. Call after releasing the process
    /// lock: waking a thread costs the waker several microseconds here,
    /// which the next writer, waiting for the lock, should not wait for.
    /// - Complexity: O(1); a `futex` call for each kind of sleeper there is.
    func didAppend() {
        #if os(Linux)
        if halfWord(at: Self.flagsOffset).pointee.load(ordering: .sequentiallyConsistent) & Self.gatheringFlag != 0 {
            halfWord(at: Self.bellOffset).pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
            _ = chronicle_futex_wake(futexAddress(Self.bellOffset), 1)
        }
        let sleeping = halfWord(at: Self.followersOffset).pointee.load(ordering: .sequentiallyConsistent)
        if sleeping > ownFollowersSleeping.load(ordering: .sequentiallyConsistent) { wakeFollowers() }
        #endif
    }

    /// Zeroes the counts of sleepers and the gathering flag. Call only
    /// when no other journal has the file open: a process killed while it
    /// slept left itself counted, and a count that stays raised makes every
    /// append wake this process's own follower (nothing worse: a wake-up is
    /// only ever a reason to look).
    func forgetSleepers() {
        halfWord(at: Self.followersOffset).pointee.store(0, ordering: .sequentiallyConsistent)
        halfWord(at: Self.sleepersOffset).pointee.store(0, ordering: .sequentiallyConsistent)
        halfWord(at: Self.flagsOffset).pointee.bitwiseAnd(~Self.gatheringFlag, ordering: .sequentiallyConsistent)
    }

    #if os(Linux)
    /// How many appends every journal of the file made (wrapping): what a
    /// follower notes before it looks, and then sleeps on.
    var appendCount: UInt32 { halfWord(at: Self.commitsOffset).pointee.load(ordering: .sequentiallyConsistent) }

    /// Whether another journal appended since this one last did (or, if it
    /// has not yet, since it opened): whether a write of this journal's
    /// store has others' commits to fold.
    /// - Complexity: O(1): two atomic loads, no system call.
    var othersAppendedSinceOwnAppend: Bool { appendCount != lastCommit.load(ordering: .relaxed) }

    /// Sleeps until an append count other than `count`, a wake-up
    /// (``wakeFollowers()``, which ``didAppend()`` calls), or `timeout`.
    /// - Returns: whether a wake-up ended it: not the timeout, and not a
    ///   count that had moved already when the sleep began (an append found
    ///   then, the follower's own store's included, wakes no one).
    @discardableResult
    func sleepUntilAppend(after count: UInt32, timeout: Duration) -> Bool {
        let followers = halfWord(at: Self.followersOffset)
        followers.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        ownFollowersSleeping.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer {
            ownFollowersSleeping.wrappingSubtract(1, ordering: .sequentiallyConsistent)
            Self.lower(followers)
        }
        return chronicle_futex_wait(futexAddress(Self.commitsOffset), count, Int64(timeout / .nanoseconds(1))) == 0
    }

    /// Lowers a count of sleepers by one, unless it is 0 already (an
    /// opener alone with the file zeroed it, ``forgetSleepers()``, while a
    /// closed journal's thread still slept).
    private static func lower(_ count: UnsafeMutablePointer<Atomic<UInt32>>) {
        var current = count.pointee.load(ordering: .sequentiallyConsistent)
        while current > 0 {
            let (exchanged, found) = count.pointee.compareExchange(expected: current, desired: current - 1,
                                                                   ordering: .sequentiallyConsistent)
            if exchanged { return }
            current = found
        }
    }

    /// How many followers, in every process, sleep on the append count (for tests).
    var sleepingFollowers: Int { Int(halfWord(at: Self.followersOffset).pointee.load(ordering: .sequentiallyConsistent)) }

    /// How many of them are this journal's (for tests).
    var ownSleepingFollowers: Int { Int(ownFollowersSleeping.load(ordering: .sequentiallyConsistent)) }

    /// Wakes every follower sleeping on the append count, in any process.
    func wakeFollowers() {
        _ = chronicle_futex_wake(futexAddress(Self.commitsOffset), Int32.max)
    }
    #endif

    /// Makes the journal file `fileID` durable up to `target` at least:
    /// returns if a sync already covered `target`; otherwise waits for a
    /// sync another process is making and looks again; otherwise takes the
    /// sync lock and runs `sync` (which syncs the file), recording that
    /// everything written before it started is durable.
    ///
    /// So a process whose commit was written while another process synced
    /// waits for that sync and then makes one sync for itself and every
    /// other process that wrote meanwhile: the others find their commits
    /// covered. Were `fileID` not the file the ends are for, it syncs and
    /// records nothing.
    ///
    /// On Linux, processes wait on futexes in the area, not in line for
    /// the lock:
    ///
    /// - **Covered, without a system call.** The synced end is read
    ///   between two reads of the file identifier (each word atomic), and
    ///   ``adopt(fileID:syncedEnd:)`` zeroes the identifier before it
    ///   replaces the ends: an end read between two matching identifiers
    ///   is this file's.
    /// - **Waiting for a sync.** A process that finds the lock taken sleeps
    ///   on the sync sequence, which the syncing process raises (waking
    ///   every sleeper at once) when its sync ends: each looks again
    ///   without the lock, instead of taking it in turn. The sleep is
    ///   bounded (``syncWaitLimit``): a syncing process killed before it
    ///   woke anyone only costs a sleeper that long, and `flock` gives the
    ///   lock back when a process dies.
    /// - **Gathering,** as ``GroupCommit`` does among threads: without it,
    ///   processes split into two halves that take turns (one half's
    ///   commits are synced while the other half writes), and a sync covers
    ///   half of them. A sync records how many commits it saw (those
    ///   appended since the sync before it started: the ones it covered and
    ///   those appended while it ran, about one a writing process), and the
    ///   next syncing process first sleeps on the bell, which each append
    ///   rings (``didAppend()``), until that many commits are appended since the last sync
    ///   started, or for twice as long as the last sync took (at most
    ///   ``GroupCommit/maxGatherWindow``). Only commits of several
    ///   journals are gathered for (one process's writer threads gathered
    ///   in its ``GroupCommit`` already), so one process alone never waits;
    ///   one that died costs the others the window once (the next sync sees
    ///   one commit fewer).
    ///
    /// Elsewhere (no futex every platform has; a polled wait was tried and
    /// cost more than the syncs it saved) a process waits for the lock in
    /// `flock`, and nothing gathers.
    ///
    /// - Throws: what `sync` throws (nothing is recorded then).
    /// - Complexity: no system call when a sync covered `target`; otherwise
    ///   a `flock` and its release, plus the sync when none covered `target`.
    func syncCovering(_ target: Int, fileID: UUID, sync: () throws(JournalError) -> Void) throws(JournalError) {
        #if os(Linux)
        while true {
            let sequence = halfWord(at: Self.syncSequenceOffset).pointee.load(ordering: .sequentiallyConsistent)
            if isCovered(target, fileID: fileID) { return }
            guard let locked = tryLockSync() else { break }
            if locked {
                defer { _ = flock(fd, LOCK_UN) }
                return try syncHoldingLock(target, fileID: fileID, gathering: true, sync: sync)
            }
            sleepUntilSyncEnds(after: sequence)
        }
        #endif
        try withSyncLock { () throws(JournalError) in try syncHoldingLock(target, fileID: fileID, gathering: false, sync: sync) }
    }

    /// The longest a process sleeps waiting for another's sync to end
    /// before it looks again (Linux).
    static let syncWaitLimit = Duration.milliseconds(5)

    /// Whether a recorded sync of the file `fileID` ended exactly at
    /// `end`, the end of its whole records: a sharing open skips its own
    /// sync then. The area is a file, so this holds across restarts: the
    /// synced end is only ever raised after the sync it records. An end
    /// recorded past `end` is not trusted (see ``adopt(fileID:syncedEnd:)``).
    /// Call holding the process lock, so that no one appends meanwhile.
    func syncEnded(exactlyAt end: Int, fileID: UUID) -> Bool {
        stores(fileID) && word(at: Self.syncedEndOffset).pointee.load(ordering: .sequentiallyConsistent) == UInt64(end)
            && word(at: Self.writtenEndOffset).pointee.load(ordering: .sequentiallyConsistent) == UInt64(end)
    }

    /// Whether a sync covered `target` of the file `fileID` (see
    /// ``syncCovering(_:fileID:sync:)``).
    private func isCovered(_ target: Int, fileID: UUID) -> Bool {
        guard stores(fileID) else { return false }
        let synced = word(at: Self.syncedEndOffset).pointee.load(ordering: .sequentiallyConsistent)
        return synced >= UInt64(target) && stores(fileID)
    }

    /// The sync's part under the sync lock: covered already, or a sync
    /// (after gathering, if asked), recorded.
    private func syncHoldingLock(_ target: Int, fileID: UUID, gathering: Bool,
                                 sync: () throws(JournalError) -> Void) throws(JournalError) {
        guard stores(fileID) else { return try sync() }
        let synced = word(at: Self.syncedEndOffset)
        if synced.pointee.load(ordering: .acquiring) >= UInt64(target) { return }
        #if os(Linux)
        if gathering { gather() }
        let commits = halfWord(at: Self.commitsOffset), flags = halfWord(at: Self.flagsOffset)
        let severalBefore = flags.pointee.bitwiseAnd(~Self.severalWritersFlag, ordering: .sequentiallyConsistent)
            .oldValue & Self.severalWritersFlag != 0
        let previousStart = halfWord(at: Self.commitsAtSyncStartOffset).pointee
            .exchange(commits.pointee.load(ordering: .sequentiallyConsistent), ordering: .sequentiallyConsistent)
        let started = ContinuousClock.now
        #endif
        // Whole records up to `written` are in the page cache now: the
        // sync that starts after this load makes them durable.
        let written = word(at: Self.writtenEndOffset).pointee.load(ordering: .acquiring)
        try sync()
        synced.pointee.max(max(written, UInt64(target)), ordering: .sequentiallyConsistent)
        #if os(Linux)
        let took = (ContinuousClock.now - started) / .microseconds(1)
        shortWord(at: Self.lastSyncOffset).pointee.store(UInt16(clamping: Int(took)), ordering: .relaxed)
        // Gathering is for commits of other processes: one process's
        // writer threads gathered already (its ``GroupCommit``).
        let several = severalBefore || flags.pointee.load(ordering: .sequentiallyConsistent) & Self.severalWritersFlag != 0
        let seen = several ? commits.pointee.load(ordering: .sequentiallyConsistent) &- previousStart : 0
        shortWord(at: Self.expectedCommitsOffset).pointee.store(UInt16(clamping: seen), ordering: .relaxed)
        halfWord(at: Self.syncSequenceOffset).pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if halfWord(at: Self.sleepersOffset).pointee.load(ordering: .sequentiallyConsistent) != 0 {
            _ = chronicle_futex_wake(futexAddress(Self.syncSequenceOffset), Int32.max)
        }
        #endif
    }

    /// How many commits the next sync gathers for: 0 unless the last one
    /// saw another journal's (for tests).
    var gatherTarget: Int { Int(shortWord(at: Self.expectedCommitsOffset).pointee.load(ordering: .sequentiallyConsistent)) }

    /// Whether a process's sync is gathering now (for tests).
    var isGathering: Bool {
        halfWord(at: Self.flagsOffset).pointee.load(ordering: .sequentiallyConsistent) & Self.gatheringFlag != 0
    }

    #if os(Linux)
    /// The address of the futex word at `offset`.
    private func futexAddress(_ offset: Int) -> UnsafeMutablePointer<UInt32> {
        (base + offset).assumingMemoryBound(to: UInt32.self)
    }

    /// Takes the sync lock if free: `true` taken, `false` another process
    /// holds it, `nil` `flock` failed otherwise (the caller syncs without it).
    private func tryLockSync() -> Bool? {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            return errno == EWOULDBLOCK ? false : nil
        }
        return true
    }

    /// Sleeps until the sync sequence moves past `sequence` (a sync ended),
    /// at most ``syncWaitLimit``. Registered as a sleeper first, so the
    /// syncing process, which raises the sequence before it looks for
    /// sleepers, either sees it or raised the sequence before this sleep
    /// begins (and the sleep returns at once).
    private func sleepUntilSyncEnds(after sequence: UInt32) {
        let sleepers = halfWord(at: Self.sleepersOffset)
        sleepers.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent)
        defer { Self.lower(sleepers) }
        _ = chronicle_futex_wait(futexAddress(Self.syncSequenceOffset), sequence,
                                 Int64(Self.syncWaitLimit / .nanoseconds(1)))
    }

    /// Sleeps, holding the sync lock, until as many commits as the last
    /// sync saw are appended since it started, or for twice as long as it
    /// took, at most ``GroupCommit/maxGatherWindow`` (see ``syncCovering(_:fileID:sync:)``).
    private func gather() {
        let expected = UInt32(shortWord(at: Self.expectedCommitsOffset).pointee.load(ordering: .relaxed))
        guard expected > 1 else { return }
        let commits = halfWord(at: Self.commitsOffset)
        let since = halfWord(at: Self.commitsAtSyncStartOffset).pointee.load(ordering: .sequentiallyConsistent)
        guard commits.pointee.load(ordering: .sequentiallyConsistent) &- since < expected else { return }
        let lastSync = Duration.microseconds(Int64(shortWord(at: Self.lastSyncOffset).pointee.load(ordering: .relaxed)))
        let deadline = ContinuousClock.now + min(lastSync * 2, gatherWindowLimit)
        let flags = halfWord(at: Self.flagsOffset), bell = halfWord(at: Self.bellOffset)
        flags.pointee.bitwiseOr(Self.gatheringFlag, ordering: .sequentiallyConsistent)
        defer { flags.pointee.bitwiseAnd(~Self.gatheringFlag, ordering: .sequentiallyConsistent) }
        while true {
            // The bell before the count: an append after this count rings
            // a bell that is no longer `rung`, and the sleep returns at once.
            let rung = bell.pointee.load(ordering: .sequentiallyConsistent)
            if commits.pointee.load(ordering: .sequentiallyConsistent) &- since >= expected { return }
            let remaining = deadline - .now
            if remaining <= .zero { return }
            _ = chronicle_futex_wait(futexAddress(Self.bellOffset), rung, Int64(remaining / .nanoseconds(1)))
        }
    }
    #endif

    /// `body` run holding the sync lock (or without it, should `flock` fail:
    /// the lock only saves syncs, every sync is correct without it).
    private func withSyncLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        var locked = true
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            locked = false
            break
        }
        defer { if locked { _ = flock(fd, LOCK_UN) } }
        return try body()
    }

    // MARK: Counters

    /// Counter `index` (0 if never raised).
    func counter(_ index: Int) -> UInt64 {
        if index < Self.counterCapacity {
            return word(at: Self.countersOffset + 8 * index).pointee.load(ordering: .acquiring)
        }
        return withSyncLock { storedCounter(index) }
    }

    /// Counter `index`, beyond the mapping: read from the file.
    private func storedCounter(_ index: Int) -> UInt64 {
        var value: UInt64 = 0
        let read = withUnsafeMutableBytes(of: &value) { pread(fd, $0.baseAddress, 8, off_t(Self.countersOffset + 8 * index)) }
        return read == 8 ? value : 0
    }

    /// Raises counter `index` to `value` unless it is higher already.
    func raiseCounter(_ index: Int, to value: UInt64) {
        if index < Self.counterCapacity {
            word(at: Self.countersOffset + 8 * index).pointee.max(value, ordering: .releasing)
            return
        }
        // Beyond the mapping, the sync lock makes the read and the write one step.
        withSyncLock {
            guard storedCounter(index) < value else { return }
            var value = value
            _ = withUnsafeBytes(of: &value) { pwrite(fd, $0.baseAddress, 8, off_t(Self.countersOffset + 8 * index)) }
        }
    }
}
