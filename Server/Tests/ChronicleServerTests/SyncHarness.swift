import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses
import Testing

/// A synced note: the model the session tests edit from several devices.
final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var count = 0
    @Persisted var tags: List<String>
    @Persisted var labels: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    /// An embedded object and a list of them: they sync with their owner.
    @Persisted var place: Place?
    @Persisted var stops: List<Place>
    /// Links: to another note; to objects without a primary key, alone and
    /// in a set; and a map of embedded objects.
    @Persisted var next: Note?
    @Persisted var badge: Badge?
    @Persisted var badges: MutableSet<Badge>
    @Persisted var rooms: Map<String, Place?>
}
extension Note: @unchecked Sendable {}

/// An object of its own (not embedded) without a primary key: two devices'
/// creates of badges are two badges.
final class Badge: Object {
    @Persisted var label = ""

    convenience init(label: String) {
        self.init()
        self.label = label
    }
}
extension Badge: @unchecked Sendable {}

/// Where a note is: embedded in it.
final class Place: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var floor = 0

    convenience init(city: String, floor: Int) {
        self.init()
        self.city = city
        self.floor = floor
    }
}
extension Place: @unchecked Sendable {}

/// One device: a store in a journal file of its own, and its session.
final class Device: @unchecked Sendable {
    // Safety: `session` is replaced only by the test that owns the device, between uses.
    let url: URL
    private(set) var store: Store
    private(set) var session: SyncSession
    let scope: String
    private(set) var server: URL

    init(server: URL, scope: String, token: String = Harness.writer, name: String = "device") throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        url = folder.appendingPathComponent("\(name).journal")
        store = try Store(configuration: .init(fileURL: url, objectTypes: [Note.self, Badge.self]))
        self.scope = scope
        self.server = server
        session = SyncSession(store: store, server: server, scope: scope, token: token)
    }

    /// Closes the store and opens it again, as an app killed and relaunched (session not started).
    func relaunch(server: URL? = nil) throws {
        session.stop()
        try store.close()
        if let server { self.server = server }
        store = try Store(configuration: .init(fileURL: url, objectTypes: [Note.self, Badge.self]))
        session = SyncSession(store: store, server: self.server, scope: scope, token: Harness.writer)
    }

    /// Points the session at another server (same store).
    func reconnect(to server: URL) {
        session.stop()
        self.server = server
        session = SyncSession(store: store, server: server, scope: scope, token: Harness.writer)
        session.start()
    }

    func note(_ id: Int) -> Note? { store.object(ofType: Note.self, forPrimaryKey: id) }

    /// The store's content as the journal folds it.
    func dump() throws -> [String: [String: String]] {
        try Dump.of(Dump.fold(store.journalForReading))
    }

    func sync(timeout: Duration = .seconds(60)) async throws {
        try await withTimeout(timeout) { [session] in
            try await session.waitUntilUploaded()
            try await session.waitUntilDownloaded()
        }
    }
}

struct TimeoutError: Error, CustomStringConvertible {
    var description: String { "timed out" }
}

func withTimeout<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw TimeoutError()
        }
        let result = try await group.next()!
        group.cancelAll()
        return result
    }
}

/// States compared by what users see: per type name, per primary key, each
/// property by name (sets sorted: their order is not part of their meaning).
enum Dump {
    /// The dump of the fold of `scope`'s commits on `server`: what every
    /// device of the scope must end with.
    static func serverState(_ server: ServerProcess, scope: String) async throws -> [String: [String: String]] {
        try of(fold(try await serverCommits(API(base: server.base, token: Harness.writer), scope: scope)))
    }

    static func fold(_ journal: Journal) throws -> StoreState {
        var state = StoreState()
        var reader = journal.reader(from: journal.baseVersion + 1)
        while let commit = try reader.next() { state = try state.applying(commit).state }
        return state
    }

    static func fold(_ commits: [Commit]) throws -> StoreState {
        var state = StoreState()
        for commit in commits { state = try state.applying(commit).state }
        return state
    }

    static func of(_ state: StoreState) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for (table, type) in state.schema.enumerated() {
            guard let pk = type.primaryKeyIndex else { continue }
            for (_, record) in state.objects(table: table) {
                result[type.name, default: [:]]["\(record.values[pk])"] = fields(of: record, type: type, in: state)
            }
        }
        return result
    }

    /// An object's properties by name; a link shows what it links to (an
    /// embedded object's own fields, another object's primary key), not
    /// the key, which each journal picks for itself.
    private static func fields(of record: ObjectRecord, type: TypeSchema, in state: StoreState) -> String {
        var fields: [String] = []
        for (index, property) in type.properties.enumerated().sorted(by: { $0.element.name < $1.element.name }) {
            func shown(_ value: PersistedValue) -> String {
                guard case .link(let key) = value, let name = property.objectType,
                      let table = state.tableIndex(named: name), let target = state.object(table: table, key: key) else { return "\(value)" }
                let targetType = state.schema[table]
                if let pk = targetType.primaryKeyIndex { return "→\(name)(\(target.values[pk]))" }
                return "{\(Self.fields(of: target, type: targetType, in: state))}"
            }
            switch record.values[index] {
            case .list(let elements): fields.append("\(property.name)=[\(elements.map(shown).joined(separator: ", "))]")
            case .set(let elements): fields.append("\(property.name)={\(elements.map(shown).sorted().joined(separator: ", "))}")
            case .map(let entries): fields.append("\(property.name)=[\(entries.map { "\($0.key): \(shown($0.value))" }.joined(separator: ", "))]")
            case let value: fields.append("\(property.name)=\(shown(value))")
            }
        }
        return fields.joined(separator: " ")
    }

    /// The objects two dumps disagree on, for failure messages.
    static func difference(_ mine: [String: [String: String]], _ theirs: [String: [String: String]]) -> String {
        var lines: [String] = []
        for type in Set(mine.keys).union(theirs.keys).sorted() {
            let a = mine[type] ?? [:], b = theirs[type] ?? [:]
            for key in Set(a.keys).union(b.keys).sorted() where a[key] != b[key] {
                lines.append("\(type) \(key): \(a[key] ?? "missing") | expected \(b[key] ?? "missing")")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Every commit of the scope, in server order, from the server.
    static func serverCommits(_ api: API, scope: String) async throws -> [Commit] {
        var commits: [Commit] = []
        while true {
            let pull = try #require(try await api.pull(scope, after: UInt64(commits.count)).pull)
            if pull.commits.isEmpty { return commits }
            commits += try pull.commits.map { try Commit(encoded: $0.payload) }
        }
    }
}

/// SplitMix64: a seeded generator, so a failing run repeats.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
