#if os(Linux)
import Glibc
import Chronicle
import Foundation
import Synchronization

private final class StopFlag: Sendable { let value = Atomic<Bool>(false) }

/// `--probe sync DIR [COUNT]`: one durable writer, COUNT commits (2,000
/// by default) a variant, three rounds of the variants in turn, each
/// variant's time a commit:
/// - `bare`: append 40 bytes and `fdatasync`, in space reserved ahead;
/// - `inotifyStat`: the same, with an inotify watch on the file and a
///   thread that `fstat`s it on each change (a follower as it was);
/// - `jx`, `js`: a ``Journal`` opened alone, and shared between processes;
/// - `jsw`: shared, with a thread catching up on each change (a follower);
/// - `store`: a store's one-property commit, as W2's one writer.
///
/// It found why a durable commit of a shared journal cost about 80 µs more
/// than the bare loop: the catch-up's `fstat` (see `JournalFile.size()`).
enum SyncProbe {
    static func run(_ directory: URL, count: Int) throws {
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for round in 0..<3 {
            var line = "round \(round):"
            for variant in ["bare", "inotifyStat", "jx", "js", "jsw", "store"] {
                let url = directory.appendingPathComponent("\(variant)-\(round)")
                let elapsed = variant == "store" ? try store(url, count: count) : variant.hasPrefix("j") ? try journal(url, count: count, variant: variant) : try bare(url.path, count: count, variant: variant)
                line += String(format: " %@ %.0f µs", variant, Measure.seconds(elapsed) / Double(count) * 1e6)
            }
            print(line)
        }
    }

    static func bare(_ path: String, count: Int, variant: String) throws -> Duration {
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "sync probe: open failed (errno \(errno))")
        defer { close(fd) }
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        precondition(zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == zeros.count && fsync(fd) == 0)
        let stop = StopFlag()
        if variant == "inotifyStat" {
            follow(path, until: stop) {
                var info = stat()
                fstat(fd, &info)
            }
        }
        defer { stop.value.store(true, ordering: .relaxed); usleep(100_000) }
        let record = [UInt8](repeating: 7, count: 40)
        var end = 0
        return ContinuousClock().measure {
            for _ in 0..<count {
                precondition(record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(end)) } == record.count)
                end += record.count
                precondition(fdatasync(fd) == 0)
            }
        }
    }

    static func journal(_ url: URL, count: Int, variant: String) throws -> Duration {
        let journal = variant == "jx" ? try Journal(fileURL: url) : try Journal(sharedFileURL: url)
        let stop = StopFlag()
        if variant == "jsw" { follow(url.path, until: stop) { _ = try? journal.catchUp() } }
        defer { stop.value.store(true, ordering: .relaxed); usleep(100_000) }
        let now = Date()
        return try ContinuousClock().measure {
            for index in 0..<count {
                let version = UInt64(index + 1)
                try journal.append(Commit(version: version, timestamp: now,
                                          events: [.set(table: 0, key: ObjectKey(1), property: 0, value: .int(Int64(index)))]))
            }
        }
    }

    /// A thread that runs `onChange` at each inotify change of `path`, as a
    /// store's follower does, until `stop` is set.
    private static func follow(_ path: String, until stop: StopFlag, onChange: @escaping @Sendable () -> Void) {
        let watch = inotify_init1(Int32(IN_NONBLOCK))
        inotify_add_watch(watch, path, UInt32(IN_MODIFY))
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            var poller = pollfd(fd: watch, events: Int16(POLLIN), revents: 0)
            while !stop.value.load(ordering: .relaxed) {
                guard poll(&poller, 1, 50) > 0 else { continue }
                _ = buffer.withUnsafeMutableBytes { read(watch, $0.baseAddress, $0.count) }
                onChange()
            }
            close(watch)
        }.start()
    }

    static func store(_ url: URL, count: Int) throws -> Duration {
        let store = try ChronicleSide.open(url, durability: .full)
        try store.write { store.add(Player()) }
        let player = store.objects(Player.self).first!
        return try ContinuousClock().measure {
            for index in 0..<count { try store.write { player.score = index } }
        }
    }
}
#endif
