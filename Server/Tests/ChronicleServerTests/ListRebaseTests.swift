import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses
import Testing

/// List edits made offline on two devices, rebased by position
/// transformation against a real server.
@Suite("SyncSession list rebase", .serialized)
struct ListRebaseTests {
    /// Both devices insert into one list offline, at overlapping positions,
    /// and one removes an element: every insert is kept, each next to the
    /// neighbours it was inserted between, and both devices end with the
    /// server's fold. (Clamped indices would have put b's inserts before
    /// a's and removed `b` instead of `c`.)
    @Test func offlineInsertsIntoOneListAreAllKeptInOrder() async throws {
        let server = try await ServerProcess()
        defer { server.stop() }
        let (scope, a, b) = try SyncSessionTests.twoDevices(on: server)
        try await SyncSessionTests.share(a, with: b) {
            let note = Note()
            note.id = 1
            note.tags.append(contentsOf: ["a", "b", "c", "d"])
            a.store.add(note)
        }

        // Offline. a: [a, A1, b, A2, c, d]
        try a.store.write { a.note(1)!.tags.insert("A1", at: 1) }
        try a.store.write { a.note(1)!.tags.insert("A2", at: 3) }
        // b: [a, B1, b, c, d], then without c, then B2 after b: [a, B1, b, B2, d]
        try b.store.write {
            let tags = b.note(1)!.tags
            tags.insert("B1", at: 1)
            tags.remove(at: 3)
        }
        try b.store.write { b.note(1)!.tags.insert("B2", at: 3) }

        // a first, then b rebased over a's inserts.
        try await SyncSessionTests.reconnect(a, b)
        defer { a.session.stop(); b.session.stop() }

        let expected = ["a", "A1", "B1", "b", "A2", "B2", "d"]
        for device in [a, b] {
            #expect(Array(try #require(device.note(1)).tags) == expected)
        }
        let folded = try await Dump.serverState(server, scope: scope)
        #expect(try a.dump() == folded)
        #expect(try b.dump() == folded)
    }
}
