import Chronicle
import Foundation

/// Chronicle-only figures the model, collections and projections issues ask
/// for. (Their query figures are W3's rows; their observer figures are W5's.)
enum ModelBenchmarks {
    // MARK: Commit cost against store size

    static let commits = Workload(
        id: "commit-size", summary: "one-property commit (.none) in stores of 10k, 100k and 1M players: flat?",
        sides: [.chronicle], prepare: nil
    ) { _, options in
        var figures: [Figure] = []
        for size in options.commitSizes {
            let directory = try freshDirectory(in: options.directory, "commits")
            defer { try? FileManager.default.removeItem(at: directory) }
            let data = PlayerData.generate(size)
            let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .none)
            try ChronicleSide.seed(data, into: store)
            var random = SplitMix64(seed: 3)
            let handles = (0..<1000).map { _ in store.object(ofType: Player.self, forPrimaryKey: Int(random.next() % UInt64(size)))! }
            var latencies: [Duration] = []
            let clock = ContinuousClock()
            for round in 0..<(options.quick ? 3 : 10) {
                for (i, player) in handles.enumerated() {
                    let start = clock.now
                    try store.write { player.score = -1 - (round * 1000 + i) }
                    if round > 0 { latencies.append(clock.now - start) }
                }
            }
            let label = size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1000)k"
            figures.append(.times("commit one property, store of \(label)", latencies))
        }
        return figures
    }

    // MARK: Reads

    static let reads = Workload(
        id: "reads", summary: "read one property of a held object; object(ofType:forPrimaryKey:) (100k players)",
        sides: [.chronicle], prepare: nil
    ) { _, options in
        let directory = try freshDirectory(in: options.directory, "reads")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = PlayerData.generate(options.players)
        let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .none)
        try ChronicleSide.seed(data, into: store)
        let player = store.object(ofType: Player.self, forPrimaryKey: 4242)!
        let reads = 1_000_000
        let read = try Measure.repeated(warmups: options.warmups, runs: options.runs) {
            var sum = 0
            for _ in 0..<reads { sum &+= player.score }
            blackHole(sum)
        }
        var random = SplitMix64(seed: 11)
        let keys = (0..<options.lookups).map { _ in Int(random.next() % UInt64(data.count)) }
        let lookup = try Measure.repeated(warmups: options.warmups, runs: options.runs) {
            var found = 0
            for key in keys where store.object(ofType: Player.self, forPrimaryKey: key) != nil { found += 1 }
            blackHole(found)
        }
        func per(_ durations: [Duration], _ count: Int) -> [Duration] { durations.map { $0 / count } }
        return [
            .times("read one property (per read)", per(read, reads)),
            .times("object(ofType:forPrimaryKey:) (per lookup)", per(lookup, keys.count)),
        ]
    }

    // MARK: Projections against base objects

    static let projections = Workload(
        id: "projections", summary: "100k projections over Results reading one projected property, against the base objects",
        sides: [.chronicle], prepare: nil
    ) { _, options in
        let directory = try freshDirectory(in: options.directory, "projections")
        defer { try? FileManager.default.removeItem(at: directory) }
        let data = PlayerData.generate(options.players)
        let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .none)
        try ChronicleSide.seed(data, into: store)
        let base = try Measure.repeated(warmups: options.warmups, runs: options.runs * 2) {
            var sum = 0
            for player in store.objects(Player.self) { sum &+= player.name.utf8.count }
            blackHole(sum)
        }
        let projected = try Measure.repeated(warmups: options.warmups, runs: options.runs * 2) {
            var sum = 0
            for card in store.objects(PlayerCard.self) { sum &+= card.displayName.utf8.count }
            blackHole(sum)
        }
        let ratio = Measure.seconds(Measure.median(projected)) / Measure.seconds(Measure.median(base))
        return [
            .times("base objects: iterate, read name", base),
            .times("projections: iterate, read projected name", projected, note: String(format: "%.2f× base (target ≤ 1.5×)", ratio)),
        ]
    }
}
