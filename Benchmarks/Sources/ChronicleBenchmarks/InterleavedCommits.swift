#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Chronicle
import Foundation

/// W2's one durable writer against the bare loop its target is set by, in
/// one loop: each step makes a store's one-property commit (`.full`), then
/// appends a record of the same size to a file next to the journal with
/// `pwrite` and syncs it with `fdatasync`, in space reserved ahead as the
/// journal's is. Each side's latency is timed alone.
///
/// Interleaved, the two meet the disk in the same state. Timed in runs of
/// their own (W2's totals against the bare group commit's), they do not:
/// this machine's disk moves by up to 2× within minutes, more than the
/// difference the target is about.
///
/// The record's size is measured, not assumed: a store of the same seed
/// makes a few commits and is closed (which gives back its reserved
/// space), and the file's growth is divided by them.
enum InterleavedCommits {
    struct Result {
        var store: [Duration]
        var bare: [Duration]
        var recordSize: Int
    }

    static func run(_ directory: URL, seed: [PlayerData], steps: Int) throws -> Result {
        let recordSize = try commitRecordSize(directory.appendingPathComponent("sizing"), seed: seed)
        let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .full)
        try ChronicleSide.seed(seed, into: store)
        let handles = seed.map { store.object(ofType: Player.self, forPrimaryKey: $0.id)! }

        let fd = try BareGroupCommit.reservedFile(directory.appendingPathComponent("bare.log").path, bytes: steps * recordSize)
        defer { close(fd) }
        let record = [UInt8](repeating: 7, count: recordSize)

        let clock = ContinuousClock()
        var storeTimes: [Duration] = [], bareTimes: [Duration] = []
        storeTimes.reserveCapacity(steps)
        bareTimes.reserveCapacity(steps)
        var end = 0
        for i in 0..<steps {
            let player = handles[(i &* 7919) % handles.count]
            var start = clock.now
            try store.write { player.score = score(i) }
            storeTimes.append(clock.now - start)

            start = clock.now
            let appended = record.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(end)) }
            precondition(appended == recordSize && fdatasync(fd) == 0, "interleaved commits: append failed (errno \(errno))")
            bareTimes.append(clock.now - start)
            end += recordSize
        }
        return Result(store: storeTimes, bare: bareTimes, recordSize: recordSize)
    }

    /// The score step `i` writes: never a value the seed holds, so every
    /// write commits, and of one varint length for every `i` below 100k,
    /// so that every commit is of one size.
    private static func score(_ i: Int) -> Int { -100_000 - i }

    /// The bytes one one-property commit adds to the journal of a store
    /// seeded with `seed`.
    private static func commitRecordSize(_ directory: URL, seed: [PlayerData]) throws -> Int {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("players.journal")
        func fileSize() throws -> Int { try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int }
        do {
            let store = try ChronicleSide.open(url, durability: .full)
            try ChronicleSide.seed(seed, into: store)
            try store.close()
        }
        let before = try fileSize()
        let commits = 64
        do {
            let store = try ChronicleSide.open(url, durability: .full)
            let handles = seed.prefix(commits).map { store.object(ofType: Player.self, forPrimaryKey: $0.id)! }
            for (i, player) in handles.enumerated() { try store.write { player.score = score(i) } }
            try store.close()
        }
        let size = (try fileSize() - before) / commits
        precondition(size > 8 && size < 1024, "interleaved commits: a commit took \(size) bytes of the journal; was its reserved space kept at close?")
        return size
    }
}
