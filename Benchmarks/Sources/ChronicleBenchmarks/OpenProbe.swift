import Chronicle
import Foundation

/// W6's Chronicle opens, one at a time, for a profiler (`valgrind --tool=callgrind`):
/// the harness runs each workload several times in child processes, which
/// is too slow under instrumentation and mixes the open with its set-up.
///
///     ChronicleBenchmarks --probe seed DIR [COUNT]   # a journal of COUNT players and its checkpoint file
///     ChronicleBenchmarks --probe one DIR [COUNT]    # open it with the checkpoint, read one player
///     ChronicleBenchmarks --probe all DIR            # open it with the checkpoint, read every score
///     ChronicleBenchmarks --probe every DIR          # the same, reading every property
///     ChronicleBenchmarks --probe everytimes DIR [N] # `every` N times in one process (default 10), each timed
///     ChronicleBenchmarks --probe foldall DIR        # open without the checkpoint file (fold the journal), read every score
///     ChronicleBenchmarks --probe foldevery DIR      # the same, reading every property (W6's fold + read every property)
///     ChronicleBenchmarks --probe iterate DIR [COUNT] # a fresh store of COUNT players (default 100k); iterate them reading the name, 20 times, then as projections, 20 times
///     ChronicleBenchmarks --probe repeat DIR [COUNT] # 20 opens reading one player, each timed
///     ChronicleBenchmarks --probe reopen DIR [COUNT] # two folds reading every score (each store dropped), then `repeat`'s 20 opens
///     ChronicleBenchmarks --probe rewrite DIR [COUNT] # the checkpoint file written again, then `repeat`'s 20 opens
///     ChronicleBenchmarks --probe fold DIR [COUNT]   # open without the checkpoint file (fold the journal), read one
///     ChronicleBenchmarks --probe uuids DIR [COUNT]  # make and add COUNT objects with a UUID primary key (DIR unused), in memory
///     ChronicleBenchmarks --probe insert DIR [COUNT] # W1 once: a fresh store in DIR, COUNT players (default 100k) in one durable write
///     ChronicleBenchmarks --probe refold DIR [COUNT] # four folds in one process, each store dropped before the next; resident after each
///     ChronicleBenchmarks --probe observe DIR        # W5's Chronicle side in this process (DIR holds its store); its figures
///     ChronicleBenchmarks --probe turns DIR [COUNT]  # four stores on one journal in this process take turns, COUNT commits each (default 2,000): a write that catches up on the others' commits, on one thread
///     ChronicleBenchmarks --probe commits DIR [COUNT] # W2's Chronicle side: COUNT one-property commits (default 10k), one writer, not synced; a fresh store in DIR
///     ChronicleBenchmarks --probe lookups DIR [COUNT] # W4's Chronicle side: COUNT random primary-key lookups (default 100k) of 100k players, reading the score
///     ChronicleBenchmarks --probe frozenpk DIR COUNT # the fold of `memory`'s journal of COUNT objects with an `ObjectId` primary key in DIR, time travel to its middle, two look-ups by primary key
///     ChronicleBenchmarks --probe interleaved DIR [COUNT] # W2's target measure: COUNT steps (default 2,000) of a store's durable commit, then a bare append of its size and `fdatasync`; the p50s
///     ChronicleBenchmarks --probe wakes DIR [COUNT] # W5's target measure: COUNT steps (default 900) of a Chronicle commit and its stream's wake, and a GRDB commit and its router's; the p50s and p99s
///     ChronicleBenchmarks --probe scan DIR [COUNT]   # W3's count where score < 100 over COUNT players (default 100k), then its materialisation, 200 times each; the medians
enum OpenProbe {
    static func run(_ arguments: [String]) throws {
        guard arguments.count >= 2 else { fatalError("usage: --probe seed|one|fold|foldall|foldevery|refold|all|every|repeat|uuids|insert|sync DIR [COUNT]") }
        let directory = URL(fileURLWithPath: arguments[1])
        let journal = directory.appendingPathComponent("players.journal")
        let count = arguments.count > 2 ? Int(arguments[2])! : 1_000_000
        let start = ContinuousClock.now
        switch arguments[0] {
        case "seed":
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try ChronicleSide.seed(PlayerData.generate(count), into: ChronicleSide.open(journal, durability: .none))
            try ChronicleSide.open(journal, durability: .none, checkpointFile: true).writeCheckpoint()
        case "refold":
            let probe = count / 2 + 17
            for round in 1...4 {
                let start = ContinuousClock.now
                do {
                    let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: false)
                    precondition(store.object(ofType: Player.self, forPrimaryKey: probe)!.id == probe)
                    print("fold \(round)", ContinuousClock.now - start, "resident open", ProcessInfoReader.statusKB("VmRSS") / 1024, "MB (anonymous", ProcessInfoReader.statusKB("RssAnon") / 1024, "MB, file", ProcessInfoReader.statusKB("RssFile") / 1024, "MB)")
                    ProcessInfoReader.printMallocStats()
                }
                print("resident after dropping it", ProcessInfoReader.statusKB("VmRSS") / 1024, "MB")
            }
        case "one", "fold":
            let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: arguments[0] == "one")
            let probe = count / 2 + 17
            precondition(store.object(ofType: Player.self, forPrimaryKey: probe)!.id == probe)
        case "insert":
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let data = PlayerData.generate(arguments.count > 2 ? count : 100_000)
            let store = try ChronicleSide.open(journal, durability: .full)
            let faults = ProcessInfoReader.minorFaults()
            let inserting = ContinuousClock.now
            try ChronicleSide.insert(data[...], into: store)
            print("insert", ContinuousClock.now - inserting, "minor faults", ProcessInfoReader.minorFaults() - faults)
        case "iterate":
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let store = try ChronicleSide.open(journal, durability: .none)
            try ChronicleSide.seed(PlayerData.generate(arguments.count > 2 ? count : 100_000), into: store)
            IterationProbe.base(store)
            IterationProbe.projected(store)
        case "scan":
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let data = PlayerData.generate(arguments.count > 2 ? count : 100_000)
            let store = try ChronicleSide.open(journal, durability: .none)
            try ChronicleSide.seed(data, into: store)
            let limit = PlayerData.matchingScore
            let predicate = #Predicate<Player> { $0.score < limit }
            var times: [Duration] = []
            for _ in 0..<200 {
                let started = ContinuousClock.now
                blackHole(store.objects(Player.self).filter(predicate).count)
                times.append(ContinuousClock.now - started)
            }
            print("count where score < \(limit), median of 200:", times.sorted()[100])
            times = []
            for _ in 0..<200 {
                let started = ContinuousClock.now
                var sum = 0
                for p in store.objects(Player.self).filter(predicate) { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
                blackHole(sum)
                times.append(ContinuousClock.now - started)
            }
            print("materialise where score < \(limit), read all fields, median of 200:", times.sorted()[100])
        case "uuids":
            let store = try Store(configuration: .inMemory(identifier: "uuids"))
            let made = ContinuousClock.now
            let badges = (0..<count).map { Badge(level: $0) }
            let added = ContinuousClock.now
            try store.write { for badge in badges { store.add(badge) } }
            print("made", added - made, "added", ContinuousClock.now - added)
            precondition(store.objects(Badge.self).count == count)
        case "sync":
            #if os(Linux)
            try SyncProbe.run(directory, count: arguments.count > 2 ? count : 2_000)
            #else
            print("--probe sync uses inotify: Linux only")
            #endif
        case "interleaved":
            // W2's interleaved measure alone: a store's durable commit, then a bare append and sync of its size.
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let result = try InterleavedCommits.run(directory, seed: PlayerData.generate(10_000), steps: arguments.count > 2 ? count : 2_000)
            let store = Measure.median(result.store), bare = Measure.median(result.bare)
            print("store commit p50", store, "bare append (\(result.recordSize) bytes) + fdatasync p50", bare,
                  String(format: "ratio %.3f", Measure.seconds(store) / Measure.seconds(bare)))
        case "wakes":
            // W5's interleaved commit-to-wake alone: a Chronicle commit and its stream's wake, a GRDB commit and its router's.
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let data = PlayerData.generate(10_000)
            let observed = (0..<1_000).map { $0 * 10 }
            let wakes = try ObservationWorkload.interleavedWakes(data, observed: observed, directory: directory,
                                                                 commits: arguments.count > 2 ? count : 900)
            func line(_ name: String, _ times: [Duration]) -> String {
                "\(name) p50 \(Measure.median(times)) p99 \(Measure.percentile(times, 0.99))"
            }
            print(line("chronicle's commit", wakes.chronicleCommits), "|", line("router's commit", wakes.routerCommits))
            print(line("chronicle", wakes.chronicle), "|", line("router", wakes.router),
                  String(format: "| p99 router/chronicle %.2f", Measure.seconds(Measure.percentile(wakes.router, 0.99)) / Measure.seconds(Measure.percentile(wakes.chronicle, 0.99))))
        case "turns":
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let url = directory.appendingPathComponent("turns-\(UUID().uuidString).journal")
            let stores = try (0..<4).map { _ in try SharingBenchmark.open(url, durability: .none) }
            for (index, store) in stores.enumerated() { try store.write { store.create(Beat.self, value: ["id": index]) } }
            let beats = stores.indices.map { stores[$0].object(ofType: Beat.self, forPrimaryKey: $0)! }
            let rounds = arguments.count > 2 ? count : 2_000
            let turns = ContinuousClock.now
            for _ in 0..<rounds {
                for (store, beat) in zip(stores, beats) { try store.write { beat.count += 1 } }
            }
            print("a commit after another store's:", (ContinuousClock.now - turns) / (rounds * stores.count))
            for store in stores { try store.close() }
            try? FileManager.default.removeItem(at: url)
        case "commits":
            // W2's Chronicle side, one writer, not synced: what a small commit costs by itself.
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let commits = arguments.count > 2 ? count : 10_000
            let timed = try PeerWorkloads.chronicleCommits(directory, seed: PlayerData.generate(1_000), commits: commits,
                                                           writers: 1, durability: .none)
            print("a commit:", timed.0 / commits)
        case "lookups":
            // W4's Chronicle side: COUNT random primary-key lookups of 100k players, reading the score.
            try? FileManager.default.removeItem(at: directory)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let data = PlayerData.generate(100_000)
            let store = try ChronicleSide.open(journal, durability: .none)
            try ChronicleSide.seed(data, into: store)
            var random = SplitMix64(seed: 7)
            let keys = (0..<(arguments.count > 2 ? count : 100_000)).map { _ in Int(random.next() % UInt64(data.count)) }
            let looking = ContinuousClock.now
            var sum = 0
            for key in keys { sum &+= store.object(ofType: Player.self, forPrimaryKey: key)!.score }
            blackHole(sum)
            print("a lookup:", (ContinuousClock.now - looking) / keys.count)
        case "repeat":
            // Opens in one process, as the harness measures them (the first pays one-time costs).
            try timedOpens(journal, probe: count / 2 + 17)
        case "reopen":
            // W6's order in one process: folds of the journal (each store
            // dropped), then opens with the checkpoint file, each timed.
            for _ in 0..<2 {
                let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: false)
                var sum = 0
                for player in store.objects(Player.self) { sum &+= player.score }
                blackHole(sum)
            }
            try timedOpens(journal, probe: count / 2 + 17)
        case "rewrite":
            // W6's last step before its checkpoint rows: the checkpoint file
            // written again, then opens with it, each timed.
            try ChronicleSide.open(journal, durability: .none, checkpointFile: true).writeCheckpoint()
            try timedOpens(journal, probe: count / 2 + 17)
        case "observe":
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let options = Options(directory: directory)
            let data = PlayerData.generate(options.observedPlayers)
            let stride = data.count / options.observers
            let observed = (0..<options.observers).map { $0 * stride }
            let run = try freshDirectory(in: directory, "w5")
            defer { try? FileManager.default.removeItem(at: run) }
            for figure in try ObservationWorkload.chronicle(data, observed: observed, directory: run, options: options) {
                print(figure.name, figure.unit.isTime ? "\(figure.median * 1e6) µs / \(figure.p99 * 1e6) µs" : "\(figure.median)")
            }
        case "all":
            let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: true)
            var sum = 0
            for player in store.objects(Player.self) { sum &+= player.score }
            blackHole(sum)
        case "foldall":
            let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: false)
            var sum = 0
            for player in store.objects(Player.self) { sum &+= player.score }
            blackHole(sum)
        case "foldevery":
            let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: false)
            var sum = 0
            for p in store.objects(Player.self) { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
            blackHole(sum)
        case "every":
            let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: true)
            var sum = 0
            for p in store.objects(Player.self) { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
            blackHole(sum)
        case "everytimes":
            // W6's read of every property as the harness repeats it: COUNT
            // (default 10) opens in one process, each timed.
            for _ in 0..<(arguments.count > 2 ? count : 10) {
                let start = ContinuousClock.now
                do {
                    let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: true)
                    var sum = 0
                    for p in store.objects(Player.self) { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
                    blackHole(sum)
                }
                print(ContinuousClock.now - start)
            }
        case "frozenpk":
            // `memory`'s journal of COUNT objects with an `ObjectId` primary
            // key (`--memory-child seed 12 COUNT DIR` writes it): a fold,
            // then time travel to the middle and two look-ups by primary key.
            let kind = MemoryProbe.kinds.firstIndex { $0.type == KindObjectIdPrimaryKey.self }!
            let store = try MemoryProbe.open(MemoryProbe.journal(directory, kind), MemoryProbe.kinds[kind])
            print("fold", ContinuousClock.now - start)
            let objects = store.objects(KindObjectIdPrimaryKey.self)
            let early = objects[count / 10].v, later = objects[count / 5].v
            let travel = ContinuousClock.now
            let frozen = try store.frozen(at: store.version / 2)
            print("frozen(at:)", ContinuousClock.now - travel)
            for id in [early, later] {
                let lookup = ContinuousClock.now
                precondition(frozen.object(ofType: KindObjectIdPrimaryKey.self, forPrimaryKey: id) != nil)
                print("look-up by primary key", ContinuousClock.now - lookup)
            }
        default:
            fatalError("unknown probe \(arguments[0])")
        }
        print(arguments[0], ContinuousClock.now - start)
    }
}

/// 20 opens of `journal` with its checkpoint file, each reading player
/// `probe` and each timed (printed), for `--probe repeat` and `reopen`.
@inline(never) private func timedOpens(_ journal: URL, probe: Int) throws {
    for _ in 0..<20 {
        let start = ContinuousClock.now
        do {
            let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: true)
            precondition(store.object(ofType: Player.self, forPrimaryKey: probe)!.id == probe)
        }
        print(ContinuousClock.now - start)
    }
}

/// A model with a `UUID` primary key, as the seeds' `Dog` has, for `--probe uuids`.
final class Badge: Object {
    @Persisted(primaryKey: true) var _id: UUID
    @Persisted var level = 0

    convenience init(level: Int) {
        self.init()
        self.level = level
    }
}
extension Badge: @unchecked Sendable {}

/// `--probe iterate`'s two loops, apart so that a profile tells them apart.
enum IterationProbe {
    @inline(never)
    static func base(_ store: Store) {
        for _ in 0..<20 {
            var sum = 0
            for player in store.objects(Player.self) { sum &+= player.name.utf8.count }
            blackHole(sum)
        }
    }

    @inline(never)
    static func projected(_ store: Store) {
        for _ in 0..<20 {
            var sum = 0
            for card in store.objects(PlayerCard.self) { sum &+= card.displayName.utf8.count }
            blackHole(sum)
        }
    }
}
