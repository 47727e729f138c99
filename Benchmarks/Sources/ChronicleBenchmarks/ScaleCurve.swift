import Chronicle
import Foundation
import GRDB

/// The scale curve (`scale`, only when named): stores of 100k and 1M
/// players (and 10M with `--10m`), names of random length 6…14, on both
/// sides. Every phase runs in a fresh child process, so each one's peak
/// (`VmHWM`) and settled (`VmRSS` at its end, the store still open)
/// resident memory are its own:
///
/// - Chronicle: open without a checkpoint file (the fold) and read one
///   player's every property; the same and read every property of every
///   player; the first open with checkpoint files on (folds, reads one,
///   and — in the background, once open — writes the file: the time until
///   it is written is shown below the row); open with the file and read
///   one; and read all.
/// - GRDB: open and read one row; open and read every row (a cursor).
///
/// Each round runs every phase once, the sides alternating; the figures
/// are medians of the rounds and each ratio the median of the rounds' own.
enum ScaleCurve {
    enum Phase: String, CaseIterable {
        case foldOne = "fold-one", foldAll = "fold-all", firstOpen = "first-open", fileOne = "file-one", fileAll = "file-all"
        case grdbOne = "grdb-one", grdbAll = "grdb-all"

        var title: String {
            switch self {
            case .foldOne: "open without a checkpoint (fold) + read one"
            case .foldAll: "open without a checkpoint (fold) + read all"
            case .firstOpen: "first open (fold; the file written after) + read one"
            case .fileOne: "open with the checkpoint file + read one"
            case .fileAll: "open with the checkpoint file + read all"
            case .grdbOne, .grdbAll: ""
            }
        }

        /// GRDB's phase this Chronicle phase compares with.
        var peer: Phase { self == .foldAll || self == .fileAll ? .grdbAll : .grdbOne }
    }

    /// One child's measurement.
    struct Sample {
        var seconds: Double
        var peakKB: Int
        var settledKB: Int
        var baselineKB: Int
        /// The first open: until the checkpoint file, written in the
        /// background once the store is open, is in place.
        var writtenSeconds: Double?
    }

    static func paths(_ directory: URL, _ size: Int) -> (journal: URL, database: URL) {
        let folder = directory.appendingPathComponent("scale-\(size)")
        return (folder.appendingPathComponent("players.journal"), folder.appendingPathComponent("players.sqlite"))
    }

    static func label(_ size: Int) -> String { size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1000)k" }

    // MARK: Parent

    static func run(sizes: [Int], rounds: Int, directory: URL) throws {
        for size in sizes {
            print("\n-- \(label(size)) players (names 6…14 letters), \(rounds) rounds")
            fflush(nil)
            let seeded = try Harness.child(["--scale-child", "seed", String(size), directory.path])
            print(String(format: "   (seeded both sides in %.1f s)", seeded.seconds))
            var samples: [Phase: [Sample]] = [:]
            for _ in 0..<rounds {
                for phase in [Phase.foldOne, .grdbOne, .foldAll, .grdbAll, .firstOpen, .fileOne, .fileAll] {
                    let result = try Harness.child(["--scale-child", phase.rawValue, String(size), directory.path])
                    guard let figure = result.figures.first else { fatalError("scale child \(phase) printed no figure") }
                    let parts = figure.note.split(separator: " ").compactMap { Int($0) }
                    samples[phase, default: []].append(Sample(seconds: figure.median, peakKB: result.peakKB,
                                                              settledKB: parts[0], baselineKB: parts[1],
                                                              writtenSeconds: parts.count > 2 ? Double(parts[2]) / 1e6 : nil))
                }
            }
            printTable(size, samples, directory: directory)
            try? FileManager.default.removeItem(at: paths(directory, size).journal.deletingLastPathComponent())
        }
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
    }

    static func printTable(_ size: Int, _ samples: [Phase: [Sample]], directory: URL) {
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func mb(_ kB: Double) -> String { String(format: "%.0f", kB / 1024) }
        print(pad("phase", 54) + pad("Chronicle", 12) + pad("GRDB", 12) + pad("ratio", 8) + pad("rounds' ratios", 24)
              + "peak / settled / growth MB: Chronicle; GRDB")
        for phase in [Phase.foldOne, .foldAll, .firstOpen, .fileOne, .fileAll] {
            let mine = samples[phase] ?? [], theirs = samples[phase.peer] ?? []
            let ratios = zip(mine, theirs).map { $1.seconds / $0.seconds }
            func memory(_ s: [Sample]) -> String {
                "\(mb(median(s.map { Double($0.peakKB) }))) / \(mb(median(s.map { Double($0.settledKB) }))) / "
                    + mb(median(s.map { Double($0.settledKB - $0.baselineKB) }))
            }
            print(pad(phase.title, 54)
                  + pad(Harness.format(median(mine.map(\.seconds)), .seconds), 12)
                  + pad(Harness.format(median(theirs.map(\.seconds)), .seconds), 12)
                  + pad(String(format: "%.2f×", median(ratios)), 8)
                  + pad(ratios.map { String(format: "%.3g", $0) }.joined(separator: ", "), 24)
                  + memory(mine) + "; " + memory(theirs))
            let written = mine.compactMap(\.writtenSeconds)
            if !written.isEmpty {
                print(pad("  … until its checkpoint file is written", 54) + Harness.format(median(written), .seconds)
                      + " (rounds: " + written.map { String(format: "%.3g s", $0) }.joined(separator: ", ") + ")")
            }
        }
        let (journal, database) = paths(directory, size)
        let folder = journal.deletingLastPathComponent()
        let checkpoint = ProcessInfoReader.diskSize(folder, prefix: "players.journal.checkpoint")
        let journalBytes = ProcessInfoReader.diskSize(folder, prefix: "players.journal") - checkpoint
        let databaseBytes = ProcessInfoReader.diskSize(folder, prefix: database.lastPathComponent)
        print("on disk: journal \(Harness.format(Double(journalBytes), .bytes)), checkpoint file \(Harness.format(Double(checkpoint), .bytes)); "
              + "SQLite \(Harness.format(Double(databaseBytes), .bytes))")
        fflush(nil)
    }

    // MARK: Child

    /// `--scale-child <phase|seed> <size> <dir>`: prints one figure whose
    /// note is "<settled kB> <baseline kB>", then the peak (as every child).
    static func runChild(_ arguments: [String]) throws -> Never {
        guard arguments.count == 3, let size = Int(arguments[1]) else { fatalError("usage: --scale-child PHASE SIZE DIR") }
        let (journal, database) = paths(URL(fileURLWithPath: arguments[2]), size)
        if arguments[0] == "seed" {
            try seed(size, journal: journal, database: database)
            print("RSS\t\(ProcessInfoReader.statusKB("VmHWM"))")
            exit(0)
        }
        guard let phase = Phase(rawValue: arguments[0]) else { fatalError("unknown scale phase \(arguments[0])") }
        let baseline = ProcessInfoReader.statusKB("VmRSS")
        let probe = size / 2 + 17
        let start = ContinuousClock.now
        var sum = 0
        // Held to the end: the settled figure is with the store open.
        var store: Store?
        var pool: DatabasePool?
        switch phase {
        case .foldOne, .foldAll, .firstOpen, .fileOne, .fileAll:
            if phase == .firstOpen {
                try? FileManager.default.removeItem(at: URL(fileURLWithPath: journal.path + ".checkpoint"))
            }
            let opened = try ChronicleSide.open(journal, durability: .none, checkpointFile: phase != .foldOne && phase != .foldAll)
            if phase == .foldAll || phase == .fileAll {
                for p in opened.objects(Player.self) { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
            } else {
                let p = opened.object(ofType: Player.self, forPrimaryKey: probe)!
                sum = usePlayer(p.id, p.name, p.team, p.score)
            }
            store = opened
        case .grdbOne, .grdbAll:
            let opened = try GRDBSide.open(database.path, synchronous: .normal)
            sum = try opened.read { db in
                var sum = 0
                if phase == .grdbOne {
                    let p = try PlayerRecord.fetchOne(db.cachedStatement(sql: "SELECT id, name, team, score FROM player WHERE id = ?"),
                                                      arguments: [probe])!
                    sum = usePlayer(p.id, p.name, p.team, p.score)
                } else {
                    let rows = try PlayerRecord.fetchCursor(db.cachedStatement(sql: "SELECT id, name, team, score FROM player"))
                    while let p = try rows.next() { sum &+= usePlayer(p.id, p.name, p.team, p.score) }
                }
                return sum
            }
            pool = opened
        }
        let elapsed = ContinuousClock.now - start
        blackHole(sum)
        var note = ""
        if phase == .firstOpen, let store {
            // The file is written in the background once the store is
            // open; closing waits for it (the peak includes it).
            try store.close()
            note = " \(Int(((ContinuousClock.now - start) / .microseconds(1)).rounded()))"
        }
        let settled = ProcessInfoReader.statusKB("VmRSS")
        print(Figure.times(phase.rawValue, [elapsed], note: "\(settled) \(baseline)" + note).line)
        print("RSS\t\(ProcessInfoReader.statusKB("VmHWM"))")
        withExtendedLifetime((store, pool)) {}
        exit(0)
    }

    static func seed(_ size: Int, journal: URL, database: URL) throws {
        let folder = journal.deletingLastPathComponent()
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // In slices, so that 10M players' data never sits whole in memory.
        let slice = 1_000_000
        do {
            let store = try ChronicleSide.open(journal, durability: .none)
            let pool = try GRDBSide.open(database.path, synchronous: .normal)
            try GRDBSide.createSchema(pool)
            var start = 0
            while start < size {
                let data = PlayerData.generate(min(slice, size - start), seed: 42 &+ UInt64(start), variedNames: true)
                    .map { row in PlayerData(id: row.id + start, name: row.name, team: row.team, score: row.score) }
                try ChronicleSide.seed(data, into: store)
                try GRDBSide.seed(data, into: pool)
                start += slice
            }
            _ = try pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try pool.close()
        }
    }
}
