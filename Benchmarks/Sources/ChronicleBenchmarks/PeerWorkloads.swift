import Chronicle
import Foundation
import GRDB

/// W1–W4 and W6 of the benchmark issue, each on both sides. (W5, observation,
/// is in ObservationWorkload.swift.)
enum PeerWorkloads {
    // MARK: W1 — insert 100k players in one write

    static let w1 = w1(variedNames: false)
    /// W1 with names of random length 6…14.
    static let w1v = w1(variedNames: true)

    static func w1(variedNames: Bool) -> Workload {
        let tag = variedNames ? "W1v" : "W1"
        return Workload(
            id: tag, summary: "insert 100k players\(variedNames ? " (names 6…14 letters)" : "") in one durable write (.full / synchronous=FULL)",
            sides: Side.allCases, prepare: nil
        ) { side, options in
            let data = PlayerData.generate(options.players, variedNames: variedNames)
            let root = try freshDirectory(in: options.directory, "w1")
            defer { try? FileManager.default.removeItem(at: root) }
            var directory = root
            func setup() throws {
                try? FileManager.default.removeItem(at: directory)
                directory = try freshDirectory(in: root, "run")
            }
            var durations: [Duration] = []
            // Page faults taken during each measured write: pages touched
            // afresh (about 2 µs each on the benchmarks' VM).
            var faults: [Int] = []
            switch side {
            case .chronicle:
                for run in 0..<(options.warmups + options.runs) {
                    try setup()
                    let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .full)
                    let before = ProcessInfoReader.minorFaults()
                    let elapsed = try ContinuousClock().measure { try ChronicleSide.insert(data[...], into: store) }
                    if run >= options.warmups { durations.append(elapsed); faults.append(ProcessInfoReader.minorFaults() - before) }
                    precondition(store.objects(Player.self).count == data.count)
                }
            case .grdb:
                for run in 0..<(options.warmups + options.runs) {
                    try setup()
                    let pool = try GRDBSide.open(directory.appendingPathComponent("players.sqlite").path, synchronous: .full)
                    try GRDBSide.createSchema(pool)
                    let before = ProcessInfoReader.minorFaults()
                    let elapsed = try ContinuousClock().measure { try GRDBSide.insert(data[...], into: pool) }
                    if run >= options.warmups { durations.append(elapsed); faults.append(ProcessInfoReader.minorFaults() - before) }
                    let stored = try pool.read { try PlayerRecord.fetchCount($0) }
                    precondition(stored == data.count)
                    try pool.close()
                }
            }
            let prefix = side == .chronicle ? "players.journal" : "players.sqlite"
            return [
                .times("\(tag) insert \(options.players / 1000)k in one write", durations),
                .count("\(tag) page faults in the write (median)", faults.sorted()[faults.count / 2]),
                .bytes("\(tag) on disk after", ProcessInfoReader.diskSize(directory, prefix: prefix),
                       note: side == .grdb ? "db + WAL after close" : ""),
            ]
        }
    }

    // MARK: W2 — 10k one-property commits

    static let w2 = Workload(
        id: "W2", summary: "10k one-property commits; durable (.full / FULL) and not synced per commit (.none / NORMAL); 1 and 8 writers",
        sides: Side.allCases, prepare: nil
    ) { side, options in
        let seed = PlayerData.generate(options.observedPlayers)
        let commits = options.durableCommits
        let root = try freshDirectory(in: options.directory, "w2")
        defer { try? FileManager.default.removeItem(at: root) }
        var figures: [Figure] = []
        var lastDirectory = root
        for durable in [true, false] {
            let tag = durable ? "W2 durable" : "W2b not synced"
            for writers in [1, 8] {
                var totals: [Duration] = []
                var latencies: [Duration] = []
                for run in 0..<(options.warmups + options.slowRuns) {
                    let directory = try freshDirectory(in: root, "run")
                    let measured: (Duration, [Duration])
                    switch side {
                    case .chronicle:
                        measured = try chronicleCommits(directory, seed: seed, commits: commits, writers: writers,
                                                        durability: durable ? .full : .none)
                    case .grdb:
                        measured = try grdbCommits(directory, seed: seed, commits: commits, writers: writers,
                                                   synchronous: durable ? .full : .normal)
                    }
                    if run >= options.warmups {
                        totals.append(measured.0)
                        latencies += measured.1
                    }
                    if durable && writers == 1 && run == options.warmups + options.slowRuns - 1 {
                        lastDirectory = directory
                    } else {
                        try? FileManager.default.removeItem(at: directory)
                    }
                }
                figures.append(.times("\(tag), \(writers) writer\(writers > 1 ? "s" : ""): \(commits) commits", totals))
                figures.append(.times("\(tag), \(writers) writer\(writers > 1 ? "s" : ""): one commit", latencies))
            }
        }
        func total(_ name: String) -> Double { figures.first { $0.name.hasPrefix(name) && $0.name.hasSuffix("commits") }!.median }
        let speedup = total("W2 durable, 1 writer") / total("W2 durable, 8 writers")
        figures.append(.ratio("W2 durable, 8 writers vs 1: throughput", speedup))
        if side == .chronicle {
            // The same commits with nothing but appends and group commit:
            // what 8 writers gain over 1 on this machine when every commit
            // waits for a group sync.
            for writers in [1, 8] {
                var totals: [Duration] = []
                for run in 0..<(options.warmups + options.slowRuns) {
                    let directory = try freshDirectory(in: root, "bare")
                    let elapsed = try BareGroupCommit.run(directory, commits: commits, writers: writers)
                    if run >= options.warmups { totals.append(elapsed) }
                    try? FileManager.default.removeItem(at: directory)
                }
                figures.append(.times("W2 bare group commit, \(writers) writer\(writers > 1 ? "s" : ""): \(commits) commits", totals))
            }
            let bare = total("W2 bare group commit, 1 writer") / total("W2 bare group commit, 8 writers")
            figures.append(.ratio("W2 bare group commit, 8 writers vs 1: throughput", bare))
            // The target's own measure: one writer's commit against a bare
            // append and sync of its size, interleaved.
            let directory = try freshDirectory(in: root, "interleaved")
            let interleaved = try InterleavedCommits.run(directory, seed: seed, steps: max(commits / 5, 100))
            try? FileManager.default.removeItem(at: directory)
            figures.append(.times("W2 durable, 1 writer: one commit, interleaved", interleaved.store))
            figures.append(.times("W2 bare append + fdatasync, interleaved", interleaved.bare,
                                  note: "\(interleaved.recordSize) bytes"))
            figures.append(.ratio("W2 durable, 1 writer over bare, p50, interleaved",
                                  Measure.seconds(Measure.median(interleaved.store)) / Measure.seconds(Measure.median(interleaved.bare))))
        }
        let prefix = side == .chronicle ? "players.journal" : "players.sqlite"
        figures.append(.bytes("W2 on disk after (10k players + commits)", ProcessInfoReader.diskSize(lastDirectory, prefix: prefix)))
        return figures
    }

    /// Seeds `seed`, then makes `commits` one-property commits from `writers`
    /// threads. Returns the total time and each commit's latency.
    static func chronicleCommits(_ directory: URL, seed: [PlayerData], commits: Int, writers: Int,
                                 durability: Durability) throws -> (Duration, [Duration]) {
        let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: durability)
        try ChronicleSide.seed(seed, into: store)
        let handles = seed.map { store.object(ofType: Player.self, forPrimaryKey: $0.id)! }
        let versionBefore = store.version
        let latencies = LatencyBox()
        let clock = ContinuousClock()
        let total = clock.measure {
            runThreads(writers) { writer in
                var mine: [Duration] = []
                mine.reserveCapacity(commits / writers)
                for i in stride(from: writer, to: commits, by: writers) {
                    let player = handles[(i &* 7919) % handles.count]
                    let start = clock.now
                    // Negative: never the value the property holds, so every write commits.
                    try! store.write { player.score = -1 - i }
                    mine.append(clock.now - start)
                }
                latencies.append(mine)
            }
        }
        precondition(store.version == versionBefore + UInt64(commits))
        return (total, latencies.values)
    }

    static func grdbCommits(_ directory: URL, seed: [PlayerData], commits: Int, writers: Int,
                            synchronous: GRDBSide.Synchronous) throws -> (Duration, [Duration]) {
        let pool = try GRDBSide.open(directory.appendingPathComponent("players.sqlite").path, synchronous: synchronous)
        try GRDBSide.createSchema(pool)
        try GRDBSide.seed(seed, into: pool)
        let latencies = LatencyBox()
        let clock = ContinuousClock()
        let count = seed.count
        let total = clock.measure {
            runThreads(writers) { writer in
                var mine: [Duration] = []
                mine.reserveCapacity(commits / writers)
                for i in stride(from: writer, to: commits, by: writers) {
                    let id = (i &* 7919) % count
                    let start = clock.now
                    try! pool.write { db in
                        let statement = try db.cachedStatement(sql: "UPDATE player SET score = ? WHERE id = ?")
                        statement.setUncheckedArguments([-1 - i, id])
                        try statement.execute()
                    }
                    mine.append(clock.now - start)
                }
                latencies.append(mine)
            }
        }
        try pool.close()
        return (total, latencies.values)
    }

    // MARK: W3 — queries over 100k players

    static let w3 = w3(variedNames: false)
    /// W3 with names of random length 6…14.
    static let w3v = w3(variedNames: true)

    static func w3(variedNames: Bool) -> Workload {
        let tag = variedNames ? "W3v" : "W3"
        return Workload(
            id: tag, summary: "queries over 100k players\(variedNames ? " (names 6…14 letters)" : ""): score < 100 (≈10%) count, materialised, sorted by name; indexed team equality",
            sides: Side.allCases, prepare: nil
        ) { side, options in
            let data = PlayerData.generate(options.players, variedNames: variedNames)
            let directory = try freshDirectory(in: options.directory, "w3")
            defer { try? FileManager.default.removeItem(at: directory) }
            let limit = PlayerData.matchingScore
            let expected = data.filter { $0.score < limit }.count
            let team = "team-7"
            let expectedTeam = data.filter { $0.team == team }.count
            /// Uses every property of a materialised player, on both sides.
            func use(_ id: Int, _ name: String, _ team: String, _ score: Int) -> Int { usePlayer(id, name, team, score) }
            var figures: [Figure] = []
            func measure(_ name: String, _ body: () throws -> Int) throws {
                var check = 0
                let durations = try Measure.repeated(warmups: options.warmups, runs: options.runs * 2) { check = try body() }
                blackHole(check)
                figures.append(.times(name, durations))
            }
            let count = "\(tag) count where score < 100"
            let all = "\(tag) materialise where score < 100, read all fields"
            let sorted = "\(tag) … sorted by name, materialise, read all fields"
            let indexedCount = "\(tag) count where team == (indexed)"
            let indexed = "\(tag) materialise where team == (indexed)"
            switch side {
            case .chronicle:
                let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .none)
                try ChronicleSide.seed(data, into: store)
                let predicate = #Predicate<Player> { $0.score < limit }
                let teamPredicate = #Predicate<Player> { $0.team == team }
                try measure(count) {
                    let n = store.objects(Player.self).filter(predicate).count
                    precondition(n == expected)
                    return n
                }
                try measure(all) {
                    var sum = 0
                    for p in store.objects(Player.self).filter(predicate) { sum &+= use(p.id, p.name, p.team, p.score) }
                    return sum
                }
                try measure(sorted) {
                    var sum = 0
                    for p in store.objects(Player.self).filter(predicate).sorted(by: \.name) { sum &+= use(p.id, p.name, p.team, p.score) }
                    return sum
                }
                try measure(indexedCount) {
                    let n = store.objects(Player.self).filter(teamPredicate).count
                    precondition(n == expectedTeam)
                    return n
                }
                try measure(indexed) {
                    var sum = 0
                    for p in store.objects(Player.self).filter(teamPredicate) { sum &+= use(p.id, p.name, p.team, p.score) }
                    return sum
                }
            case .grdb:
                let pool = try GRDBSide.open(directory.appendingPathComponent("players.sqlite").path, synchronous: .normal)
                try GRDBSide.createSchema(pool)
                try GRDBSide.seed(data, into: pool)
                try measure(count) {
                    let n = try pool.read { db in
                        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM player WHERE score < ?"), arguments: [limit])!
                    }
                    precondition(n == expected)
                    return n
                }
                func fetch(_ sql: String, _ argument: any DatabaseValueConvertible) throws -> Int {
                    try pool.read { db in
                        let players = try PlayerRecord.fetchAll(db.cachedStatement(sql: sql), arguments: [argument])
                        return players.reduce(0) { $0 &+ use($1.id, $1.name, $1.team, $1.score) }
                    }
                }
                try measure(all) { try fetch("SELECT id, name, team, score FROM player WHERE score < ?", limit) }
                try measure(sorted) { try fetch("SELECT id, name, team, score FROM player WHERE score < ? ORDER BY name", limit) }
                try measure(indexedCount) {
                    let n = try pool.read { db in
                        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM player WHERE team = ?"), arguments: [team])!
                    }
                    precondition(n == expectedTeam)
                    return n
                }
                try measure(indexed) { try fetch("SELECT id, name, team, score FROM player WHERE team = ?", team) }
                try pool.close()
            }
            return figures
        }
    }

    // MARK: W4 — 100k random primary-key lookups

    static let w4 = Workload(
        id: "W4", summary: "100k random primary-key lookups of 100k players, reading one property",
        sides: Side.allCases, prepare: nil
    ) { side, options in
        let data = PlayerData.generate(options.players)
        var random = SplitMix64(seed: 7)
        let keys = (0..<options.lookups).map { _ in Int(random.next() % UInt64(data.count)) }
        let directory = try freshDirectory(in: options.directory, "w4")
        defer { try? FileManager.default.removeItem(at: directory) }
        var durations: [Duration] = []
        let name = "W4 \(options.lookups / 1000)k lookups + read score"
        switch side {
        case .chronicle:
            let store = try ChronicleSide.open(directory.appendingPathComponent("players.journal"), durability: .none)
            try ChronicleSide.seed(data, into: store)
            durations = try Measure.repeated(warmups: options.warmups, runs: options.runs) {
                var sum = 0
                for key in keys { sum &+= store.object(ofType: Player.self, forPrimaryKey: key)!.score }
                blackHole(sum)
            }
        case .grdb:
            let pool = try GRDBSide.open(directory.appendingPathComponent("players.sqlite").path, synchronous: .normal)
            try GRDBSide.createSchema(pool)
            try GRDBSide.seed(data, into: pool)
            durations = try Measure.repeated(warmups: options.warmups, runs: options.runs) {
                let sum = try pool.read { db in
                    let statement = try db.cachedStatement(sql: "SELECT score FROM player WHERE id = ?")
                    var sum = 0
                    for key in keys { sum &+= try Int.fetchOne(statement, arguments: [key])! }
                    return sum
                }
                blackHole(sum)
            }
            try pool.close()
        }
        let perLookup = Measure.seconds(Measure.median(durations)) / Double(keys.count)
        return [.times(name, durations, note: String(format: "%@ %.0f ns a lookup", side == .chronicle ? "Chronicle" : "GRDB", perLookup * 1e9))]
    }

    // MARK: W6 — open a store of 1M objects

    static func w6Paths(_ options: Options) -> (journal: URL, database: URL) {
        let directory = options.directory.appendingPathComponent("w6")
        return (directory.appendingPathComponent("players.journal"), directory.appendingPathComponent("players.sqlite"))
    }

    static let w6 = Workload(
        id: "W6", summary: "open a store of 1M players (1M create events / rows): read one object; read all",
        sides: Side.allCases,
        prepare: { options in
            let (journal, database) = w6Paths(options)
            try FileManager.default.createDirectory(at: journal.deletingLastPathComponent(), withIntermediateDirectories: true)
            let data = PlayerData.generate(options.bigStore)
            do {
                let store = try ChronicleSide.open(journal, durability: .none)
                try ChronicleSide.seed(data, into: store)
            }
            let pool = try GRDBSide.open(database.path, synchronous: .normal)
            try GRDBSide.createSchema(pool)
            try GRDBSide.seed(data, into: pool)
            _ = try pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try pool.close()
        }
    ) { side, options in
        let (journal, database) = w6Paths(options)
        let size = options.bigStore
        let probe = size / 2 + 17
        var figures: [Figure] = []
        let label = size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1000)k"
        switch side {
        case .chronicle:
            var residentAfterOpen = 0, anonymousAfterOpen = 0
            let before = ProcessInfoReader.statusKB("VmRSS"), anonymousBefore = ProcessInfoReader.statusKB("RssAnon")
            let one = try Measure.repeated(warmups: options.warmups, runs: options.slowRuns) {
                if ProcessInfo.processInfo.environment["W6_MALLOC_STATS"] != nil {
                    FileHandle.standardError.write("W6 before open: resident \(ProcessInfoReader.statusKB("VmRSS") / 1024) MB\n".data(using: .utf8)!)
                    ProcessInfoReader.printMallocStats()
                }
                let store = try ChronicleSide.open(journal, durability: .none)
                precondition(store.object(ofType: Player.self, forPrimaryKey: probe)!.id == probe)
                residentAfterOpen = ProcessInfoReader.statusKB("VmRSS")
                anonymousAfterOpen = ProcessInfoReader.statusKB("RssAnon")
                if ProcessInfo.processInfo.environment["W6_MALLOC_STATS"] != nil {
                    FileHandle.standardError.write("W6 sample: resident \(residentAfterOpen / 1024) MB, anonymous \(anonymousAfterOpen / 1024) MB\n".data(using: .utf8)!)
                    ProcessInfoReader.printMallocStats()
                }
            }
            figures.append(.times("W6 open \(label) + read one object", one, note: "no checkpoint: folds every event"))
            let all = try Measure.repeated(warmups: 0, runs: options.slowRuns) {
                let store = try ChronicleSide.open(journal, durability: .none)
                var sum = 0
                for player in store.objects(Player.self) { sum &+= player.score }
                blackHole(sum)
            }
            figures.append(.times("W6 open \(label) + read all", all))
            let every = try Measure.repeated(warmups: 0, runs: options.slowRuns) {
                let store = try ChronicleSide.open(journal, durability: .none)
                var sum = 0
                for p in store.objects(Player.self) { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
                blackHole(sum)
            }
            figures.append(.times("W6 open \(label) + read every property", every))
            // The checkpoint file next to the journal: written once, then every open loads it.
            try ChronicleSide.open(journal, durability: .none, checkpointFile: true).writeCheckpoint()
            let checkpointed = try Measure.repeated(warmups: options.warmups, runs: options.slowRuns) {
                let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: true)
                precondition(store.object(ofType: Player.self, forPrimaryKey: probe)!.id == probe)
            }
            figures.append(.times("W6 open \(label) with a checkpoint + read one object", checkpointed,
                                  note: "maps the checkpoint file, reads one block; the journal trusts the prefix it covers"))
            let checkpointedAll = try Measure.repeated(warmups: 0, runs: options.slowRuns) {
                let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: true)
                var sum = 0
                for player in store.objects(Player.self) { sum &+= player.score }
                blackHole(sum)
            }
            figures.append(.times("W6 open \(label) with a checkpoint + read all", checkpointedAll))
            let checkpointedEvery = try Measure.repeated(warmups: 0, runs: options.slowRuns) {
                let store = try ChronicleSide.open(journal, durability: .none, checkpointFile: true)
                var sum = 0
                for p in store.objects(Player.self) { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
                blackHole(sum)
            }
            figures.append(.times("W6 open \(label) with a checkpoint + read every property", checkpointedEvery))
            let resident = (residentAfterOpen - before) * 1024
            figures.append(.bytes("W6 resident growth with \(label) players open", resident,
                                  note: String(format: "%.0f B an object; anonymous memory %.1f MB of it", Double(resident) / Double(size),
                                               Double(anonymousAfterOpen - anonymousBefore) / 1024)))
            let files = journal.deletingLastPathComponent()
            let checkpointBytes = ProcessInfoReader.diskSize(files, prefix: "players.journal.checkpoint")
            figures.append(.bytes("W6 journal size", ProcessInfoReader.diskSize(files, prefix: "players.journal") - checkpointBytes,
                                  note: "plus a \(checkpointBytes / 1_000_000) MB checkpoint file"))
        case .grdb:
            let one = try Measure.repeated(warmups: options.warmups, runs: options.slowRuns) {
                let pool = try GRDBSide.open(database.path, synchronous: .normal)
                let score = try pool.read { db in
                    try Int.fetchOne(db.cachedStatement(sql: "SELECT score FROM player WHERE id = ?"), arguments: [probe])
                }
                precondition(score != nil)
                try pool.close()
            }
            figures.append(.times("W6 open \(label) + read one object", one))
            let all = try Measure.repeated(warmups: 0, runs: options.slowRuns) {
                let pool = try GRDBSide.open(database.path, synchronous: .normal)
                let sum = try pool.read { db in
                    var sum = 0
                    let rows = try PlayerRecord.fetchCursor(db.cachedStatement(sql: "SELECT id, name, team, score FROM player"))
                    while let player = try rows.next() { sum &+= player.score }
                    return sum
                }
                blackHole(sum)
                try pool.close()
            }
            figures.append(.times("W6 open \(label) + read all", all))
            let every = try Measure.repeated(warmups: 0, runs: options.slowRuns) {
                let pool = try GRDBSide.open(database.path, synchronous: .normal)
                let sum = try pool.read { db in
                    var sum = 0
                    let rows = try PlayerRecord.fetchCursor(db.cachedStatement(sql: "SELECT id, name, team, score FROM player"))
                    while let p = try rows.next() { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
                    return sum
                }
                blackHole(sum)
                try pool.close()
            }
            figures.append(.times("W6 open \(label) + read every property", every))
            // GRDB has no checkpoint: its figures pair with Chronicle's checkpoint rows too.
            figures.append(.times("W6 open \(label) with a checkpoint + read one object", one, note: "GRDB: the same open"))
            figures.append(.times("W6 open \(label) with a checkpoint + read all", all, note: "GRDB: the same open"))
            figures.append(.times("W6 open \(label) with a checkpoint + read every property", every, note: "GRDB: the same open"))
            figures.append(.bytes("W6 journal size #database size", ProcessInfoReader.diskSize(database.deletingLastPathComponent(), prefix: "players.sqlite")))
        }
        return figures
    }
}

/// Collects per-thread latency arrays.
final class LatencyBox: @unchecked Sendable {
    // Safety: guarded by `lock`.
    private let lock = NSLock()
    private var collected: [Duration] = []
    func append(_ values: [Duration]) {
        lock.lock()
        collected += values
        lock.unlock()
    }
    var values: [Duration] {
        lock.lock()
        defer { lock.unlock() }
        return collected
    }
}

/// Runs `body(index)` on `count` threads and waits for all of them.
func runThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    if count == 1 { return body(0) }
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            body(index)
            group.leave()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    group.wait()
}
