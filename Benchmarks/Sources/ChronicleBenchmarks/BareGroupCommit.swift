#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The reference for W2's durable rows: appends to a file and group commit,
/// and nothing else — no store, no events, no encoding. Each commit takes a
/// lock, appends a record with `pwrite`, releases the lock, and waits until
/// a sync covers it; one waiter at a time leads, calling `fdatasync` for
/// everything written so far, as Chronicle's group commit does.
///
/// What 8 writers gain over 1 here is what this machine's disk and
/// scheduler allow any store that syncs this way; Chronicle's own
/// 8-writer gain is measured against it.
enum BareGroupCommit {
    /// Makes `commits` durable appends of `recordSize` bytes from `writers`
    /// threads to a new file in `directory`; returns the total time.
    static func run(_ directory: URL, commits: Int, writers: Int, recordSize: Int = 96) throws -> Duration {
        let fd = try reservedFile(directory.appendingPathComponent("bare.log").path, bytes: commits * recordSize)
        defer { close(fd) }
        let log = Log(fd: fd, recordSize: recordSize)
        return ContinuousClock().measure {
            runThreads(writers) { writer in
                for _ in stride(from: writer, to: commits, by: writers) { log.commit() }
            }
        }
    }

    /// A new file at `path`, open for writing, with `bytes` and a megabyte
    /// more reserved ahead as Chronicle's journal reserves them (zeros
    /// written and synced): a sync of appends into them then commits no
    /// change of the file's size. The caller closes it.
    static func reservedFile(_ path: String, bytes: Int) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let reserved = [UInt8](repeating: 0, count: bytes + (1 << 20))
        let written = reserved.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        precondition(written == reserved.count && fdatasync(fd) == 0, "reserving space in \(path) failed (errno \(errno))")
        return fd
    }

    /// The file and the group-commit state.
    ///
    /// `@unchecked Sendable`: `end` is only touched while `writer` is held,
    /// and `written`, `synced` and `syncing` while `condition` is.
    private final class Log: @unchecked Sendable {
        let fd: Int32
        let record: [UInt8]
        let writer = NSLock()
        let condition = NSCondition()
        var end = 0
        var written = 0
        var synced = 0
        var syncing = false

        init(fd: Int32, recordSize: Int) {
            self.fd = fd
            record = [UInt8](repeating: 7, count: recordSize)
        }

        func commit() {
            writer.lock()
            let appended = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(end)) }
            precondition(appended == record.count, "bare group commit: pwrite failed (errno \(errno))")
            end += record.count
            condition.lock()
            written += 1
            let version = written
            condition.unlock()
            writer.unlock()

            condition.lock()
            while synced < version {
                if syncing {
                    condition.wait()
                    continue
                }
                syncing = true
                let target = written
                condition.unlock()
                let status = fdatasync(fd)
                precondition(status == 0, "bare group commit: fdatasync failed (errno \(errno))")
                condition.lock()
                syncing = false
                synced = max(synced, target)
                condition.broadcast()
            }
            condition.unlock()
        }
    }
}
