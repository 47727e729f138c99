import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation

/// The model of the push and join benchmarks.
final class Item: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var count = 0
}
extension Item: @unchecked Sendable {}

/// Commits of `Item`s made without a store, as a device would push them:
/// for seeding scopes and for pushing at the server's pace, not a store's.
enum ItemCommits {
    /// `Item`'s schema exactly as a store records it (taken from the first
    /// commit of a store that wrote one), so that devices join without a mismatch.
    static let schema: TypeSchema = {
        let store = try! Store(configuration: .inMemory(identifier: "schema-\(UUID().uuidString)", objectTypes: [Item.self]))
        try! store.write { store.create(Item.self, value: ["id": 0]) }
        var reader = store.journalForReading.reader(from: 1)
        while let commit = try! reader.next() {
            for case .defineType(let type) in commit.events where type.name == "Item" { return type }
        }
        fatalError("a store that wrote an Item recorded no schema for it")
    }()

    static func index(of name: String) -> Int { schema.properties.firstIndex { $0.name == name }! }

    /// Version `version` creates item `id` (and defines the type when it is the first).
    static func create(version: UInt64, id: Int) -> Commit {
        var values = [PersistedValue](repeating: .int(0), count: schema.properties.count)
        values[index(of: "id")] = .int(Int64(id))
        values[index(of: "title")] = .string("item \(id)")
        let create = Event.create(table: 0, key: ObjectKey(Int64(id)), values: values)
        return Commit(version: version, timestamp: Date(), events: version == 1 ? [.defineType(schema), create] : [create])
    }

    /// Version `version` renames item `id`.
    static func rename(version: UInt64, id: Int) -> Commit {
        Commit(version: version, timestamp: Date(),
               events: [.set(table: 0, key: ObjectKey(Int64(id)), property: index(of: "title"), value: .string("item \(id), renamed"))])
    }

    /// Commits `range` of a scope of `objects` items: the first `objects`
    /// create one item each, the next `objects` rename one each.
    static func wire(_ range: ClosedRange<UInt64>, objects: Int) -> [SyncWire.WireCommit] {
        range.map { version in
            let commit = version <= UInt64(objects)
                ? create(version: version, id: Int(version))
                : rename(version: version, id: Int(version) - objects)
            return SyncWire.WireCommit(id: UUID(), payload: commit.encoded())
        }
    }
}

/// One device: a store in a journal file of its own and its session.
final class BenchDevice: @unchecked Sendable {
    // Safety: used by one task at a time (the benchmark's main actor), except
    // `store` and `session`, which are thread-safe.
    let folder: URL
    let store: Store
    let session: SyncSession

    init(server: URL, scope: String, token: String, types: [ObjectBase.Type], durability: Durability = .full) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        store = try Store(configuration: .init(fileURL: folder.appendingPathComponent("device.journal"), durability: durability,
                                               objectTypes: types))
        session = SyncSession(store: store, server: server, scope: scope, token: token)
    }

    /// Stops the session, closes the store and removes its files.
    func close() throws {
        session.stop()
        try store.close()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Waits (polling every millisecond or so) until `condition` holds; throws after `timeout` seconds.
@MainActor
func waitFor(_ what: String, timeout: Double, _ condition: () throws -> Bool) async throws {
    let start = Stats.now()
    while try !condition() {
        if Stats.seconds(since: start) > timeout { throw BenchError("timed out after \(Int(timeout)) s waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(1))
    }
}

/// Runs `body`, throwing if it takes longer than `seconds`.
func withTimeout<T: Sendable>(_ seconds: Double, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: .seconds(seconds))
            throw BenchError("timed out after \(Int(seconds)) s waiting for \(what)")
        }
        let result = try await group.next()!
        group.cancelAll()
        return result
    }
}
