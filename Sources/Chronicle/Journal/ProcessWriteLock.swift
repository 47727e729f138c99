#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The lock that lets one writer at a time, among every process and every
/// ``Journal`` that shares a journal file, append to it: an exclusive
/// `flock(2)` on a small file next to the journal, `<journal name>.lock`,
/// taken with a mutex that excludes the threads of this journal.
///
/// Why `flock` on a file of its own:
/// - `flock` belongs to an open file description, so two journals on one
///   file in one process exclude each other as two processes do. POSIX
///   `fcntl` record locks belong to the process instead: closing *any*
///   descriptor of the file in the process (a read-only `Journal(contentsOf:)`,
///   a checkpoint read) would silently drop the writer's lock, and threads
///   or journals of one process would never exclude each other. (Linux's
///   open-file-description `fcntl` locks fix this, but Apple platforms lack them.)
/// - The kernel drops it when the holder dies, `SIGKILL` included, so a
///   killed writer never leaves the store locked.
/// - A file of its own, because a file has one `flock` lock per
///   description: the journal file's own lock is the *shared* lock every
///   process holds while it has the journal open (see
///   ``JournalFile/openShared(_:)``), which compaction needs to tell whether
///   anyone else has the journal open. The lock file is never removed:
///   removing a lock file while another process waits on it would let two
///   writers in at once.
///
/// `flock` is for local file systems: on network file systems it is
/// emulated, or not there at all (see the "Reliability" article).
///
/// `@unchecked Sendable`: `mutex` is a pthread mutex that must not move
/// (allocated apart, as in ``Locked``); `fd` never changes; `owner` is atomic.
final class ProcessWriteLock: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The thread holding the lock (0: none), so the store's write path can
    /// tell that the append it makes is inside its own hold.
    private let owner = Atomic<UInt>(0)

    /// The lock of the journal at `journalURL`, creating its lock file
    /// (`0600`) if absent. Takes no lock.
    /// - Throws: ``JournalError/io(operation:errno:path:)``.
    init(journalURL: URL) throws(JournalError) {
        path = Self.path(for: journalURL)
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(operation: "open lock file", errno: errno, path: path) }
        self.fd = fd
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(mutex, nil)
        precondition(status == 0, "Chronicle: pthread_mutex_init failed (\(status))")
    }

    deinit {
        _ = closeDescriptor(fd)
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Where the lock file of the journal at `journalURL` is.
    static func path(for journalURL: URL) -> String { journalURL.path + ".lock" }

    /// Waits until this thread holds the lock against every other thread,
    /// journal and process. Not reentrant.
    /// - Throws: ``JournalError/io(operation:errno:path:)`` if `flock` fails
    ///   (the lock is then not held).
    func lock() throws(JournalError) {
        pthread_mutex_lock(mutex)
        while flock(fd, LOCK_EX) != 0 {
            let code = errno
            if code == EINTR { continue }
            pthread_mutex_unlock(mutex)
            throw .io(operation: "flock", errno: code, path: path)
        }
        owner.store(currentThreadID(), ordering: .releasing)
    }

    /// Releases the lock. Only the thread holding it may call this.
    func unlock() {
        precondition(isHeldByCurrentThread, "Chronicle: the journal's process lock was released by a thread that does not hold it")
        owner.store(0, ordering: .releasing)
        _ = flock(fd, LOCK_UN)
        pthread_mutex_unlock(mutex)
    }

    /// Whether the calling thread holds the lock.
    var isHeldByCurrentThread: Bool { owner.load(ordering: .acquiring) == currentThreadID() }

    /// `body` run holding the lock.
    func withLock<T>(_ body: () throws(JournalError) -> T) throws(JournalError) -> T {
        try lock()
        defer { unlock() }
        return try body()
    }
}

extension ProcessWriteLock {
    /// Waits for an exclusive `flock` on the file at `path` (created `0600`
    /// if absent): the descriptor, whose closing releases it, or `nil` if the
    /// file cannot be opened or locked. For work one process at a time does,
    /// such as writing the checkpoint file.
    static func lockAlone(path: String) -> Int32? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            _ = closeDescriptor(fd)
            return nil
        }
        return fd
    }
}

/// `close(2)`, named apart from methods called `close`.
@inline(__always) func closeDescriptor(_ fd: Int32) -> Int32 { close(fd) }
