import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses
import Testing

/// A new device joining a scope: an empty store takes the server's
/// snapshot as its journal's start, then the commits after it as usual.
@Suite("Joining a scope from its snapshot", .serialized)
struct BootstrapTests {
    static let notes = 25
    /// The metadata key of a sync commit, as the article names it.
    static let syncKey = "chronicle.sync.server"

    /// A scope of ``notes`` notes, one commit each, written by device `a`
    /// through `server` (which snapshots every 10 commits), once the
    /// server's snapshot at 20 is built.
    static func seed(_ server: ServerProcess) async throws -> (scope: String, a: Device) {
        let scope = Harness.freshScope("join")
        let a = try Device(server: server.base, scope: scope, name: "a")
        a.session.start()
        for id in 1...notes {
            try a.store.write { a.store.create(Note.self, value: ["id": id, "title": "note \(id)"]) }
        }
        try await a.sync()
        let api = API(base: server.base, token: Harness.writer)
        for _ in 0..<300 {
            if let snapshot = try await api.pull(scope, after: 0, bootstrap: true).pull?.snapshot, try Commit(encoded: snapshot).version >= 20 {
                return (scope, a)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TimeoutError()
    }

    static func snapshotServer() async throws -> ServerProcess {
        try await ServerProcess(extraArguments: ["--snapshot-interval", "10"])
    }

    /// The first commit of `store`'s journal.
    static func firstCommit(_ store: Store) throws -> Commit {
        let journal = store.journalForReading
        var reader = journal.reader(from: journal.baseVersion + 1)
        return try #require(try reader.next())
    }

    @Test func anEmptyDeviceStartsItsJournalAtTheServersSnapshot() async throws {
        let server = try await Self.snapshotServer()
        defer { server.stop() }
        let (scope, a) = try await Self.seed(server)
        defer { a.session.stop() }
        let b = try Device(server: server.base, scope: scope, name: "b")
        let changes = try b.store.objects(Note.self).changes(keyPaths: [])
        // Every note reported inserted once, whether the snapshot's and the later commits' come in one update or two.
        let watcher = Task { () -> Int in
            var inserted = 0
            for await change in changes {
                guard case .update(let notes, _, let insertions, _) = change else { continue }
                inserted += insertions.count
                if notes.count == Self.notes { return inserted }
            }
            return inserted
        }
        b.session.start()
        defer { b.session.stop() }
        try await b.sync()

        // Observers and results see the notes.
        #expect(b.store.objects(Note.self).count == Self.notes)
        #expect(b.note(3)?.title == "note 3")
        #expect(try await withTimeout(.seconds(30)) { await watcher.value } == Self.notes)
        let truth = try await Dump.serverState(server, scope: scope)
        #expect(try b.dump() == truth)
        // Its journal starts at the snapshot, marked as a sync commit with its server version.
        let first = try Self.firstCommit(b.store)
        #expect(b.store.journalForReading.baseVersion == first.version - 1)
        #expect(first.version >= 20)
        #expect(StoreState.isSnapshot(first))
        #expect(first.label == "sync")
        #expect(first.metadata[Self.syncKey] == String(first.version))
        // The commits after it came in as usual: one sync commit.
        let rest = Array(b.store.journalForReading.commits(from: first.version + 1))
        #expect(rest.allSatisfy { $0.metadata[Self.syncKey] != nil })

        // It writes as any device: its commit reaches the other one, and nothing else was pushed.
        try b.store.write { b.store.create(Note.self, value: ["id": 100, "title": "from b"]) }
        try await b.sync()
        try await a.sync()
        #expect(a.note(100)?.title == "from b")
        let commits = try await Dump.serverCommits(API(base: server.base, token: Harness.writer), scope: scope)
        #expect(commits.count == 1 + Self.notes + 1)
        #expect(try a.dump() == b.dump())
    }

    @Test func anInMemoryDeviceBootstrapsFromTheSnapshotToo() async throws {
        let server = try await Self.snapshotServer()
        defer { server.stop() }
        let (scope, a) = try await Self.seed(server)
        defer { a.session.stop() }
        let store = try Store(configuration: .inMemory(identifier: "join-\(UUID())", objectTypes: [Note.self, Badge.self]))
        let session = SyncSession(store: store, server: server.base, scope: scope, token: Harness.writer)
        session.start()
        defer { session.stop() }
        try await withTimeout(.seconds(60)) { try await session.waitUntilDownloaded() }
        #expect(store.objects(Note.self).count == Self.notes)
        #expect(store.journalForReading.baseVersion >= 19)
        let truth = try await Dump.serverState(server, scope: scope)
        #expect(try Dump.of(Dump.fold(store.journalForReading)) == truth)
        // Later commits, both ways.
        try a.store.write { a.note(1)!.title = "renamed" }
        try await a.sync()
        try store.write { store.create(Note.self, value: ["id": 200, "title": "in memory"]) }
        try await withTimeout(.seconds(60)) {
            try await session.waitUntilUploaded()
            try await session.waitUntilDownloaded()
        }
        try await a.sync()
        #expect(store.object(ofType: Note.self, forPrimaryKey: 1)?.title == "renamed")
        #expect(a.note(200)?.title == "in memory")
    }

    /// What a device killed during its bootstrap leaves: its journal
    /// already starts at the snapshot, and the progress saved after it, or
    /// that and the copy of the scope written last, are missing.
    @Test(arguments: [["progress.json"], ["progress.json", "server.journal"], ["server.journal"]])
    func aDeviceKilledDuringItsBootstrapResumes(lost files: [String]) async throws {
        let server = try await Self.snapshotServer()
        defer { server.stop() }
        let (scope, a) = try await Self.seed(server)
        defer { a.session.stop() }
        let b = try Device(server: server.base, scope: scope, name: "b")
        b.session.start()
        try await b.sync()
        let snapshot = try Self.firstCommit(b.store).version
        let folder = URL(fileURLWithPath: b.url.path + ".sync")
        b.session.stop()
        try await Task.sleep(for: .milliseconds(200))  // the session's loop closes its copy of the scope
        for file in files { try FileManager.default.removeItem(at: folder.appendingPathComponent(file)) }
        // The scope goes on meanwhile.
        try a.store.write { a.note(2)!.title = "while b was down" }
        try await a.sync()

        try b.relaunch()
        b.session.start()
        defer { b.session.stop() }
        try await b.sync()
        try await a.sync()
        #expect(b.note(2)?.title == "while b was down")
        let truth = try await Dump.serverState(server, scope: scope)
        #expect(try b.dump() == truth)
        #expect(try a.dump() == truth)
        // The journal was not replaced again, and nothing was pushed twice (the snapshot not at all).
        #expect(try Self.firstCommit(b.store).version == snapshot)
        let commits = try await Dump.serverCommits(API(base: server.base, token: Harness.writer), scope: scope)
        #expect(commits.count == 1 + Self.notes + 1)
        // And it pushes its own commits as before.
        try b.store.write { b.note(3)!.count = 3 }
        try await b.sync()
        try await a.sync()
        #expect(a.note(3)?.count == 3)
    }

    @Test func aDeviceWithObjectsOfItsOwnRebasesAsBefore() async throws {
        let server = try await Self.snapshotServer()
        defer { server.stop() }
        let (scope, a) = try await Self.seed(server)
        defer { a.session.stop() }
        let c = try Device(server: server.base, scope: scope, name: "c")
        try c.store.write { c.store.create(Note.self, value: ["id": 500, "title": "offline on c"]) }
        c.session.start()
        defer { c.session.stop() }
        try await c.sync()
        try await a.sync()
        // Its journal keeps its history from the start; the scope's notes came in a sync commit.
        #expect(c.store.journalForReading.baseVersion == 0)
        #expect(c.store.objects(Note.self).count == Self.notes + 1)
        #expect(a.note(500)?.title == "offline on c")
        let truth = try await Dump.serverState(server, scope: scope)
        #expect(try c.dump() == truth)
    }
}
