import Chronicle
import Foundation
import GRDB

// The one model both sides store: Player { id (primary key), name, team, score }.
// `team` is indexed on both sides (the indexed-equality query); `score` is not.

/// Chronicle's side of the model.
final class Player: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var team = ""
    @Persisted var score = 0
}
extension Player: @unchecked Sendable {}

/// A projection over `Player`, for the projection benchmark.
final class PlayerCard: Projection<Player> {
    @Projected(\Player.name) var displayName
}
extension PlayerCard: @unchecked Sendable {}

/// GRDB's side of the model: decoded by column index, encoded by hand.
struct PlayerRecord: FetchableRecord, PersistableRecord, Identifiable, Sendable {
    static let databaseTableName = "player"
    var id: Int
    var name: String
    var team: String
    var score: Int

    init(id: Int, name: String, team: String, score: Int) {
        self.id = id
        self.name = name
        self.team = team
        self.score = score
    }

    init(row: GRDB.Row) {
        id = row[0]
        name = row[1]
        team = row[2]
        score = row[3]
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id
        container["name"] = name
        container["team"] = team
        container["score"] = score
    }
}

/// The seeded data both sides load: the same values in the same order.
struct PlayerData: Sendable {
    var id: Int
    var name: String
    var team: String
    var score: Int

    /// Scores are uniform in 0..<1000, so `score < 100` matches about 10%.
    static let matchingScore = 100
    static let teams = 100

    /// `variedNames`: names of a random length in 6…14 letters instead of
    /// always 8 (W1v, W3v, W6 and the scale curve).
    static func generate(_ count: Int, seed: UInt64 = 42, variedNames: Bool = false) -> [PlayerData] {
        var random = SplitMix64(seed: seed)
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        return (0..<count).map { id in
            let length = variedNames ? 6 + Int(random.next() % 9) : 8
            let name = String((0..<length).map { _ in letters[Int(random.next() % 26)] })
            return PlayerData(id: id, name: name, team: "team-\(random.next() % UInt64(teams))",
                              score: Int(random.next() % 1000))
        }
    }
}

/// A small, fast, seeded generator (the same sequence on every run and platform).
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: Chronicle setup

enum ChronicleSide {
    /// A store over `url`. Without `checkpointFile` it neither reads nor
    /// writes a checkpoint file (opening folds every commit, and no
    /// background checkpoint write competes with the workload being timed);
    /// W6 and the compaction group pass `true` where they measure the file.
    static func open(_ url: URL, durability: Durability, checkpointFile: Bool = false) throws -> Store {
        var configuration = Store.Configuration(fileURL: url, durability: durability, objectTypes: [Player.self])
        configuration.checkpoints.usesFile = checkpointFile
        return try Store(configuration: configuration)
    }

    /// Inserts `data` in commits of `batch` objects.
    static func insert(_ data: ArraySlice<PlayerData>, into store: Store) throws {
        try store.write {
            for row in data {
                let player = Player()
                player.id = row.id
                player.name = row.name
                player.team = row.team
                player.score = row.score
                store.add(player)
            }
        }
    }

    static func seed(_ data: [PlayerData], into store: Store, batch: Int = 10_000) throws {
        var start = 0
        while start < data.count {
            try insert(data[start..<min(start + batch, data.count)], into: store)
            start += batch
        }
    }
}

// MARK: GRDB setup

enum GRDBSide {
    /// `synchronous` values as `PRAGMA synchronous` reports them.
    enum Synchronous: Int {
        case normal = 1
        case full = 2
    }

    /// A WAL `DatabasePool` whose writer connection runs with `synchronous`
    /// (checked on the writer: a reader's setting says nothing about commits).
    static func open(_ path: String, synchronous: Synchronous) throws -> DatabasePool {
        var configuration = Configuration()
        configuration.maximumReaderCount = 4
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA synchronous = \(synchronous.rawValue)")
        }
        let actual = try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        precondition(actual == synchronous.rawValue, "GRDB writer synchronous is \(String(describing: actual)), expected \(synchronous.rawValue)")
        let mode = try pool.writeWithoutTransaction { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        precondition(mode == "wal", "GRDB journal_mode is \(String(describing: mode))")
        return pool
    }

    static func createSchema(_ pool: DatabasePool) throws {
        try pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS player (
                    id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT NOT NULL, score INTEGER NOT NULL);
                CREATE INDEX IF NOT EXISTS player_team ON player(team);
                """)
        }
    }

    static let insertSQL = "INSERT INTO player (id, name, team, score) VALUES (?, ?, ?, ?)"

    /// Inserts `data` in one write with one prepared (cached) statement.
    static func insert(_ data: ArraySlice<PlayerData>, into pool: DatabasePool) throws {
        try pool.write { db in
            let statement = try db.cachedStatement(sql: insertSQL)
            for row in data {
                statement.setUncheckedArguments([row.id, row.name, row.team, row.score])
                try statement.execute()
            }
        }
    }

    static func seed(_ data: [PlayerData], into pool: DatabasePool, batch: Int = 10_000) throws {
        var start = 0
        while start < data.count {
            try insert(data[start..<min(start + batch, data.count)], into: pool)
            start += batch
        }
    }
}

/// A fresh directory under `parent`, removed by `cleanup`.
func freshDirectory(in parent: URL, _ name: String) throws -> URL {
    let url = parent.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Uses every property of a player read from either side, so that none of
/// the reads can be skipped.
@inline(__always) func usePlayer(_ id: Int, _ name: String, _ team: String, _ score: Int) -> Int {
    id &+ score &+ name.utf8.count &+ team.utf8.count
}

/// Mixes values into a checksum the optimiser cannot drop.
@inline(never) func blackHole(_ value: Int) {
    if value == .min { print("") }
}
