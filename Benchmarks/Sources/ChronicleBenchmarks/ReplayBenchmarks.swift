import Chronicle
import Foundation

/// The replay workloads: opening a 1M-event journal with and without a
/// checkpoint file, and `frozen(at:)` of random versions.
enum ReplayBenchmarks {
    static let runs = 5
    static let objects = 100_000
    static let updates = 900_000

    static let schema = TypeSchema(name: "Item", properties: [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "name", type: .string),
        PropertySchema(name: "count", type: .int),
    ])

    /// 100,000 creates in commits of 100, then 900,000 sets in commits of 10: 1,000,000 events, 91,001 commits.
    static func writeJournal(_ url: URL) throws -> Int {
        let journal = try Journal(fileURL: url, durability: .none)
        var version: UInt64 = 1
        let t = Date(timeIntervalSinceReferenceDate: 800_000_000)
        try journal.append(Commit(version: 1, timestamp: t, label: "schema", events: [.defineType(schema)]))
        var events = 1
        for batch in 0..<(objects / 100) {
            version += 1
            let creates = (0..<100).map { i -> Event in
                let id = Int64(batch * 100 + i + 1)
                return .create(table: 0, key: ObjectKey(id), values: [.int(id), .string("item \(id)"), .int(0)])
            }
            try journal.append(Commit(version: version, timestamp: t + Double(version), events: creates))
            events += creates.count
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<(updates / 10) {
            version += 1
            let sets = (0..<10).map { _ -> Event in
                let key = ObjectKey(Int64.random(in: 1...Int64(objects), using: &rng))
                return Bool.random(using: &rng) ? .set(table: 0, key: key, property: 2, value: .int(.random(in: 0..<1000, using: &rng)))
                    : .set(table: 0, key: key, property: 1, value: .string("renamed \(Int.random(in: 0..<1_000_000, using: &rng))"))
            }
            try journal.append(Commit(version: version, timestamp: t + Double(version), events: sets))
            events += sets.count
        }
        try journal.close()
        return events
    }

    static func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-replay-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("replay.journal")
        let events = try writeJournal(url)
        let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        print("journal: \(events) events, 91001 commits, \(size / 1_048_576) MB")

        func open(usesFile: Bool) throws -> Store {
            var configuration = Store.Configuration(fileURL: url, durability: .none)
            configuration.checkpoints = .init(usesFile: usesFile, fileThreshold: .max)
            return try Store(configuration: configuration)
        }

        let scan = try Measure.runs(runs) { _ = try Journal(contentsOf: url) }
        Measure.report("journal scan alone (Journal(contentsOf:))", operations: events, durations: scan)

        let without = try Measure.runs(runs) { _ = try open(usesFile: false) }
        Measure.report("open 1M events, no checkpoint", operations: events, durations: without)

        let writing = try Measure.runs(1) { try open(usesFile: true).writeCheckpoint() }
        let checkpointSize = (try FileManager.default.attributesOfItem(atPath: url.path + ".checkpoint")[.size] as? Int) ?? 0
        Measure.report("open + write the checkpoint file", operations: events, durations: writing)
        let with = try Measure.runs(runs) { _ = try open(usesFile: true) }
        Measure.report("open 1M events, checkpoint at the end", operations: events, durations: with,
                       extra: String(format: "(%.1f%% of without; checkpoint file %d MB)",
                                     100 * Measure.seconds(Measure.median(with)) / Measure.seconds(Measure.median(without)),
                                     checkpointSize / 1_048_576))

        // frozen(at:) of random versions, on a store that folded the whole journal (checkpoints in memory),
        // with the default policy and with denser checkpoints.
        var rng = SystemRandomNumberGenerator()
        let clock = ContinuousClock()
        for policy in [Store.CheckpointPolicy.default, .init(interval: 1024, maximumInMemory: 1024)] {
            var configuration = Store.Configuration(fileURL: url, durability: .none)
            configuration.checkpoints = policy
            configuration.checkpoints.usesFile = false
            let opened = clock.now
            let store = try Store(configuration: configuration)
            let openTime = clock.now - opened
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            var latencies: [Duration] = []
            for _ in 0..<200 {
                let version = UInt64.random(in: 0...store.version, using: &rng)
                latencies.append(try clock.measure { _ = try store.frozen(at: version) })
            }
            print(String(format: "frozen(at: random version), interval %d, at most %d in memory: median %.1f ms, p99 %.1f ms, max %.1f ms (open %.1f s; max RSS so far %d MB)",
                         policy.interval, policy.maximumInMemory,
                         Measure.seconds(Measure.median(latencies)) * 1e3, Measure.seconds(Measure.percentile(latencies, 0.99)) * 1e3,
                         Measure.seconds(latencies.max()!) * 1e3, Measure.seconds(openTime), usage.ru_maxrss / 1024))
        }

        // The first frozen(at:) below the checkpoint file of a store opened from it folds from the start (once).
        let fromFile = try open(usesFile: true)
        let first = try clock.measure { _ = try fromFile.frozen(at: fromFile.version / 2) }
        var later: [Duration] = []
        for _ in 0..<50 {
            let version = UInt64.random(in: 0...fromFile.version / 2, using: &rng)
            later.append(try clock.measure { _ = try fromFile.frozen(at: version) })
        }
        print(String(format: "opened from the checkpoint: first frozen(at: middle) %.0f ms (fills checkpoints); then median %.2f ms",
                     Measure.seconds(first) * 1e3, Measure.seconds(Measure.median(later)) * 1e3))
    }
}
