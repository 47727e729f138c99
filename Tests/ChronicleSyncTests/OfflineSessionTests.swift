import Chronicle
import ChronicleSync
import Foundation
import Testing

final class Task29Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
}
extension Task29Note: @unchecked Sendable {}

/// The client without a server: local writes never wait for the network.
/// (The server-backed tests are in `Server/Tests`, run by `scripts/sync-tests`.)
@Suite("SyncSession offline")
struct OfflineSessionTests {
    @Test func writesGoOnWhileTheServerIsUnreachable() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sync-offline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("notes.journal")
        let store = try Store(configuration: .init(fileURL: url, objectTypes: [Task29Note.self]))
        // Port 9 (discard) on loopback: nothing listens, connections are refused at once.
        let session = SyncSession(store: store, server: URL(string: "http://127.0.0.1:9")!, scope: "notes", token: "t")
        let states = session.states
        session.start()
        defer { session.stop() }
        let started = ContinuousClock.now
        for id in 1...20 {
            try store.write { store.create(Task29Note.self, value: ["id": id, "title": "note \(id)"]) }
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(store.objects(Task29Note.self).count == 20)
        var sawNetworkError = false
        for await state in states {
            if case .error(.network) = state { sawNetworkError = true; break }
        }
        #expect(sawNetworkError)
        // The sync folder is next to the journal.
        #expect(FileManager.default.fileExists(atPath: url.path + ".sync/server.journal"))
    }

    @Test func stopEndsTheSessionAndStatesSaySo() async throws {
        let store = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [Task29Note.self]))
        let session = SyncSession(store: store, server: URL(string: "http://127.0.0.1:9")!, scope: "notes", token: "t")
        #expect(session.state == .disconnected)
        session.start()
        session.stop()
        #expect(session.state == .disconnected)
        try store.write { store.create(Task29Note.self, value: ["id": 1]) }
        #expect(store.objects(Task29Note.self).count == 1)
    }
}
