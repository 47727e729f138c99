import Chronicle
import Foundation
import Synchronization

/// The journal's workloads: raw append and read throughput, and the cost of
/// durability with one and with eight committers (group commit).
enum JournalBenchmarks {
    static let runs = 5

    static func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("bench.journal")
        func fresh() throws { try? FileManager.default.removeItem(at: url) }

        // 1M small commits, no syncing.
        let small = 1_000_000
        let appendNone = try Measure.runs(runs, setup: fresh) {
            let journal = try Journal(fileURL: url, durability: .none)
            for version in 1...UInt64(small) { try journal.append(commit(version)) }
            try journal.close()
        }
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        Measure.report("append 1M small commits, .none", operations: small, durations: appendNone,
                       extra: "(\(size / small) B/commit on disk)")

        // Read them back (the journal above is left in place). Opening scans and validates.
        var opened: [Duration] = []
        let read = try Measure.runs(runs) {
            let clock = ContinuousClock()
            var journalOrNil: Journal?
            opened.append(try clock.measure { journalOrNil = try Journal(contentsOf: url) })
            let journal = journalOrNil!
            var reader = journal.reader()
            var count = 0
            while try reader.next() != nil { count += 1 }
            precondition(count == small)
        }
        Measure.report("open (validate) + read 1M commits", operations: small, durations: read,
                       extra: String(format: "(open alone: median %.3f s)", Measure.seconds(Measure.median(opened))))

        // 10k commits, full durability, one committer.
        let durable = 10_000
        var latencies: [Duration] = []
        let full1 = try Measure.runs(runs, setup: fresh) {
            let journal = try Journal(fileURL: url, durability: .full)
            let clock = ContinuousClock()
            for version in 1...UInt64(durable) {
                let start = clock.now
                try journal.append(commit(version))
                latencies.append(clock.now - start)
            }
            try journal.close()
        }
        Measure.report("append 10k commits, .full, 1 committer", operations: durable, durations: full1,
                       extra: String(format: "(append p50 %.0f µs, p99 %.0f µs)",
                                     Measure.seconds(Measure.median(latencies)) * 1e6,
                                     Measure.seconds(Measure.percentile(latencies, 0.99)) * 1e6))

        // 10k commits, full durability, eight committer threads sharing syncs.
        let full8 = try Measure.runs(runs, setup: fresh) {
            let journal = try Journal(fileURL: url, durability: .full)
            let versions = Mutex<Void>(())
            let group = DispatchGroup()
            for _ in 0..<8 {
                group.enter()
                Thread {
                    for _ in 0..<(durable / 8) {
                        let ticket = try! versions.withLock { _ in
                            try journal.write(commit(journal.lastVersion + 1))
                        }
                        try! journal.waitUntilDurable(ticket)
                    }
                    group.leave()
                }.start()
            }
            group.wait()
            precondition(journal.lastVersion == UInt64(durable))
            try journal.close()
        }
        Measure.report("append 10k commits, .full, 8 committers", operations: durable, durations: full8)

        // Batched, for comparison.
        let batched = try Measure.runs(runs, setup: fresh) {
            let journal = try Journal(fileURL: url, durability: .batched(maxDelay: .milliseconds(10), maxCommits: 1000))
            for version in 1...UInt64(durable) { try journal.append(commit(version)) }
            try journal.close()
        }
        Measure.report("append 10k commits, .batched(10 ms, 1000)", operations: durable, durations: batched)
    }

    /// A small commit: one property set, a short string.
    static func commit(_ version: UInt64) -> Commit {
        Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)),
               events: [.set(table: 0, key: ObjectKey(Int64(version % 1000)), property: 1, value: .string("value \(version)"))])
    }
}
