#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Low-level file I/O for a journal: one file descriptor, positioned reads and
/// writes, syncing, truncation and the writer's advisory lock.
///
/// The descriptor is closed only when the last reference goes away, so a
/// reader that still holds the file can never read from a reused descriptor.
final class JournalFile: JournalStorage {
    let fd: Int32
    let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { _ = closeDescriptor(fd) }

    /// Opens `url` for reading only: no lock, never modifies the file.
    static func openForReading(_ url: URL) throws(JournalError) -> JournalFile {
        try openForReading(path: url.path)
    }

    /// ``openForReading(_:)`` by path: a file URL's `path` is a few
    /// thousand instructions each time it is asked, which an open with a
    /// checkpoint file did three times for that file alone.
    static func openForReading(path: String) throws(JournalError) -> JournalFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(operation: "open", errno: errno, path: path) }
        return JournalFile(fd: fd, path: path)
    }

    /// Opens `url` for reading and writing, creating it (with a header, `0600`,
    /// atomically) if absent, and takes the exclusive advisory lock.
    /// Opening does not modify an existing file.
    static func openForWriting(_ url: URL) throws(JournalError) -> JournalFile {
        try openLocking(url, mode: LOCK_EX)
    }

    /// Opens `url` for reading and writing, creating it if absent, as one of
    /// the processes that share it: takes the journal file's *shared*
    /// advisory lock (`flock`, `LOCK_SH`) for as long as it is open, which
    /// every sharing process holds, which an exclusive writer
    /// (``openForWriting(_:)``, or a build of Chronicle from before
    /// sharing) excludes, and which tells compaction whether another process
    /// has the journal open (``tryLockExclusively()``).
    ///
    /// Call holding the journal's ``ProcessWriteLock``: compaction holds it
    /// while it replaces the file, so the file opened here is the current one.
    ///
    /// - Throws: ``JournalError/locked(_:)`` if an exclusive writer holds the
    ///   journal; ``JournalError/io(operation:errno:path:)``.
    static func openShared(_ url: URL) throws(JournalError) -> JournalFile {
        try openLocking(url, mode: LOCK_SH)
    }

    /// Opens `url` for reading and writing, creating it if absent, and
    /// takes its advisory lock in `mode` (`LOCK_EX` or `LOCK_SH`) without
    /// waiting: a lock another open holds in a conflicting mode is
    /// ``JournalError/locked(_:)``.
    private static func openLocking(_ url: URL, mode: Int32) throws(JournalError) -> JournalFile {
        let path = url.path
        var fd = open(path, O_RDWR | O_CLOEXEC)
        if fd < 0 && errno == ENOENT {
            try create(url)
            fd = open(path, O_RDWR | O_CLOEXEC)
        }
        guard fd >= 0 else { throw .io(operation: "open", errno: errno, path: path) }
        let file = JournalFile(fd: fd, path: path)
        while flock(fd, mode | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK || code == EAGAIN { throw .locked(url) }
            throw .io(operation: "flock", errno: code, path: path)
        }
        return file
    }

    /// Turns the shared lock of ``openShared(_:)`` into the exclusive one if
    /// no other description of the file holds a lock (no other process or
    /// journal has it open); otherwise keeps (or takes back) the shared lock
    /// and returns `false`.
    ///
    /// `flock` does not convert atomically: a failed attempt has dropped the
    /// shared lock, which is taken back at once. Call holding the journal's
    /// ``ProcessWriteLock``, so that no other process converts meanwhile.
    func tryLockExclusively() -> Bool {
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
            return false
        }
        return true
    }

    /// Turns the exclusive lock of ``tryLockExclusively()`` back into the shared one.
    func lockShared() {
        while flock(fd, LOCK_SH) != 0 && errno == EINTR {}
    }

    /// Creates the journal atomically: the header goes into a temporary file,
    /// which is synced and then hard-linked into place (`link` fails if another
    /// process created the journal meanwhile, which is fine: we then open theirs).
    /// So a journal file, once visible, always holds a whole header.
    private static func create(_ url: URL) throws(JournalError) {
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".creating-" + UUID().uuidString
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(operation: "create", errno: errno, path: temporary) }
        defer { unlink(temporary) }
        let temp = JournalFile(fd: fd, path: temporary)
        let header = JournalFormat.makeHeader()
        try header.withBytes { raw throws(JournalError) in try temp.write(raw, at: 0) }
        try temp.fullSync()
        if link(temporary, url.path) != 0 && errno != EEXIST {
            throw .io(operation: "link", errno: errno, path: url.path)
        }
        try syncDirectory(directory)
    }

    /// Creates a new file at `path` (`0600`, failing if it exists) for
    /// writing; no lock (the file is not a journal until renamed into place).
    static func createExclusively(_ path: String) throws(JournalError) -> JournalFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .io(operation: "create", errno: errno, path: path) }
        return JournalFile(fd: fd, path: path)
    }

    /// Makes a new directory entry durable.
    static func syncDirectory(_ path: String) throws(JournalError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(operation: "open directory", errno: errno, path: path) }
        defer { _ = closeDescriptor(fd) }
        if fsync(fd) != 0 { throw .io(operation: "fsync directory", errno: errno, path: path) }
    }

    /// The file's size, from `lseek`, not `fstat`: a catch-up asks it on
    /// every write of a shared journal, and on recent Linux kernels an
    /// `fstat` marks the file's timestamps as seen, so that the next write
    /// must give it new fine-grained ones (multigrain timestamps; seen on
    /// this project's Linux 6.18 machine, where with a stat between them
    /// every write changed the file's modification time), and each
    /// `fdatasync` after such a write took longer (ext4; likely the inode
    /// update going through the file system's journal; the figures are in
    /// the Performance article, under Commit). Every
    /// read and write here names its offset, so moving the descriptor's
    /// own offset changes nothing else.
    func size() throws(JournalError) -> Int {
        let end = lseek(fd, 0, SEEK_END)
        guard end >= 0 else { throw .io(operation: "lseek", errno: errno, path: path) }
        return Int(end)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(JournalError) -> Int {
        var done = 0
        while done < buffer.count {
            let n = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + done))
            if n > 0 { done += n; continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw .io(operation: "read", errno: errno, path: path)
        }
        return done
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(JournalError) {
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, bytes.baseAddress! + done, bytes.count - done, off_t(offset + done))
            if n > 0 { done += n; continue }
            let code = n == 0 ? EIO : errno
            if code == EINTR { continue }
            if code == ENOSPC || code == EFBIG || code == EDQUOT { throw .diskFull(path: path, errno: code) }
            throw .io(operation: "write", errno: code, path: path)
        }
    }

    /// `fdatasync` on Linux; `F_FULLFSYNC` on Apple platforms, where plain
    /// `fsync` does not flush the drive's cache.
    func sync() throws(JournalError) {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        if fsync(fd) != 0 { throw .io(operation: "fsync", errno: errno, path: path) }
        #else
        if fdatasync(fd) != 0 { throw .io(operation: "fdatasync", errno: errno, path: path) }
        #endif
    }

    /// Syncs data and metadata (size changes included).
    func fullSync() throws(JournalError) {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return }
        #endif
        if fsync(fd) != 0 { throw .io(operation: "fsync", errno: errno, path: path) }
    }

    /// Zero-fills `start..<size` and syncs the file, size included.
    func reserve(from start: Int, to size: Int) throws(JournalError) {
        let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { zeros.deallocate() }
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        var offset = start
        while offset < size {
            let count = min(zeros.count, size - offset)
            try write(UnsafeRawBufferPointer(rebasing: zeros[..<count]), at: offset)
            offset += count
        }
        try fullSync()
    }

    func truncate(to size: Int) throws(JournalError) {
        guard ftruncate(fd, off_t(size)) == 0 else { throw .io(operation: "ftruncate", errno: errno, path: path) }
        try fullSync()
    }

    func unlock() { _ = flock(fd, LOCK_UN) }
}
