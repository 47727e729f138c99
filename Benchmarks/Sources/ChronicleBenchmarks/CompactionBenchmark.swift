import Chronicle
import Foundation

/// Journal size before and after `store.compact()`: a store of 100k players
/// that then took 100k one-property commits (200k+ commits of history).
enum CompactionBenchmark {
    static let workload = Workload(
        id: "compaction", summary: "100k players + 100k one-property commits: journal size and open time before/after compact()",
        sides: [.chronicle], prepare: nil
    ) { _, options in
        let directory = try freshDirectory(in: options.directory, "compaction")
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("players.journal")
        let data = PlayerData.generate(options.players)
        let updates = options.players
        do {
            let store = try ChronicleSide.open(url, durability: .none)
            try ChronicleSide.seed(data, into: store)
            var random = SplitMix64(seed: 5)
            let handles = (0..<1000).map { _ in store.object(ofType: Player.self, forPrimaryKey: Int(random.next() % UInt64(data.count)))! }
            for i in 0..<updates { try store.write { handles[i % handles.count].score = -1 - i } }
        }
        func size() -> Int { ProcessInfoReader.diskSize(directory, prefix: "players.journal") }
        func timeOpen() throws -> [Duration] {
            // Without the checkpoint file, so the figures show what compaction saves a full fold.
            try Measure.repeated(warmups: 1, runs: options.slowRuns) { _ = try ChronicleSide.open(url, durability: .none) }
        }
        let before = size()
        let openBefore = try timeOpen()
        var kept = 0
        let keepDuration = try ContinuousClock().measure {
            let store = try ChronicleSide.open(url, durability: .none)
            try store.compact(keepingLast: 1000)
        }
        kept = size()
        let compactDuration = try ContinuousClock().measure {
            let store = try ChronicleSide.open(url, durability: .none)
            try store.compact()
        }
        let after = size()
        let openAfter = try timeOpen()
        return [
            .bytes("journal before compaction", before, note: "\(options.players / 1000)k creates + \(updates / 1000)k updates"),
            .bytes("journal after compact(keepingLast: 1000)", kept),
            .bytes("journal after compact()", after, note: String(format: "%.1f× smaller", Double(before) / Double(after))),
            .times("open + compact(keepingLast: 1000) (refolds)", [keepDuration]),
            .times("open + compact()", [compactDuration]),
            .times("open before compaction", openBefore),
            .times("open after compaction", openAfter),
        ]
    }
}
