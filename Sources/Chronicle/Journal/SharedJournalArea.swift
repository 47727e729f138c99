#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A few words every process sharing a journal file reads and writes, in a
/// file next to it (`<journal name>.shared`) that each maps into memory:
/// how far the journal is written and how far it is synced, which lets the
/// processes share one sync the way a process's writer threads do
/// (``syncCovering(_:fileID:sync:)``); and counters that only grow, which
/// the store keeps its object keys in (see ``Journal/sharedCounter(_:)``).
///
/// The file also carries the *sync lock*, an exclusive `flock` that the
/// process syncing the journal holds while it syncs (a file of its own, for
/// the reason ``ProcessWriteLock`` gives: one `flock` a description).
///
/// Layout (native byte order, every word 8-byte aligned):
///
/// | offset | bytes | what |
/// |---|---|---|
/// | 0 | 16 | the identifier of the journal file the ends are for |
/// | 16 | 8 | written end: the end of the last whole record a process appended |
/// | 24 | 8 | synced end: what a process's sync made durable, at least |
/// | 32 | 32 | unused (zero) |
/// | 64 | 8 × n | counter `i` at `64 + 8 i` |
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
    private static let countersOffset = 64
    /// How many counters the mapping holds; counters beyond it are read and
    /// written with `pread`/`pwrite` under the process lock.
    static let counterCapacity = (mappedSize - countersOffset) / 8

    /// Opens (creating it `0600` if absent) and maps the area of the journal at `journalURL`.
    /// - Throws: ``JournalError/io(operation:errno:path:)``.
    init(journalURL: URL) throws(JournalError) {
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

    // MARK: Ends

    /// Makes the ends about the file `fileID` whose data (up to `end`) was
    /// just synced: kept if they already are (another process shares the
    /// file), otherwise replaced. Call holding the process lock.
    func adopt(fileID: UUID, syncedEnd end: Int) {
        withSyncLock {
            if storedFileID == fileID {
                word(at: Self.writtenEndOffset).pointee.max(UInt64(end), ordering: .sequentiallyConsistent)
                word(at: Self.syncedEndOffset).pointee.max(UInt64(end), ordering: .sequentiallyConsistent)
            } else {
                word(at: Self.writtenEndOffset).pointee.store(UInt64(end), ordering: .sequentiallyConsistent)
                word(at: Self.syncedEndOffset).pointee.store(UInt64(end), ordering: .sequentiallyConsistent)
                withUnsafeBytes(of: fileID.uuid) { base.copyMemory(from: $0.baseAddress!, byteCount: 16) }
            }
        }
    }

    private var storedFileID: UUID {
        // Zeros to copy into, not `UUID().uuid`: making a random UUID opens
        // and reads /dev/urandom, on every commit's sync.
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: UnsafeRawBufferPointer(start: base, count: 16)) }
        return UUID(uuid: bytes)
    }

    /// Records that the file's data is whole up to `end` (a record was just
    /// appended there). Call holding the process lock, after the write.
    func didWrite(upTo end: Int) {
        word(at: Self.writtenEndOffset).pointee.max(UInt64(end), ordering: .releasing)
    }

    /// Makes the journal file `fileID` durable up to `target` at least:
    /// takes the sync lock, which waits for a sync another process is
    /// making, and returns if a sync already covered `target`; otherwise
    /// runs `sync` (which syncs the file), recording that everything
    /// written before it started is durable.
    ///
    /// So a process whose commit was written while another process synced
    /// waits for that sync and then makes one sync for itself and every
    /// other process that wrote meanwhile: the others find their commits
    /// covered. Were `fileID` not the file the ends are for, it syncs and
    /// records nothing.
    ///
    /// No **gathering** across processes, unlike ``GroupCommit`` among
    /// threads: a syncing process that first waited (polling a shared word
    /// of writers, there being no cross-process condition variable every
    /// platform has) until as many processes had written as the last sync
    /// saw made fewer syncs, but four processes committing durably got
    /// through fewer commits a second: the waits, on a busy machine, cost
    /// more than the syncs they saved.
    ///
    /// - Throws: what `sync` throws (nothing is recorded then).
    /// - Complexity: one `flock` and one `flock(LOCK_UN)`, plus the sync when
    ///   none covered `target`.
    func syncCovering(_ target: Int, fileID: UUID, sync: () throws(JournalError) -> Void) throws(JournalError) {
        // No look without the lock first: the identifier is not one atomic
        // word, and an opening process may be replacing it.
        let synced = word(at: Self.syncedEndOffset)
        try withSyncLock { () throws(JournalError) in
            guard storedFileID == fileID else { return try sync() }
            if synced.pointee.load(ordering: .acquiring) >= UInt64(target) { return }
            // Whole records up to `written` are in the page cache now: the
            // sync that starts after this load makes them durable.
            let written = word(at: Self.writtenEndOffset).pointee.load(ordering: .acquiring)
            try sync()
            synced.pointee.max(max(written, UInt64(target)), ordering: .releasing)
        }
    }

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
