import Chronicle
@_spi(SyncServer) @testable import ChronicleSync
import Foundation
import Testing

/// An object without a primary key, for the key rule.
final class RebaseKeyItem: Object {
    @Persisted var name = ""
}
extension RebaseKeyItem: @unchecked Sendable {}

/// Which key a device's create gets in the scope. The user-visible effect
/// (a device that kept a copy of a deleted embedded object took another
/// device's new object at the same key for it, and dropped the links to
/// it) is in `Server/Tests` (the convergence run with embedded objects);
/// this pins the rule itself, through the client's internals.
@Suite("Sync rebase keys")
struct RebaseKeyTests {
    /// The keys `commits`' creates use, in order.
    static func createdKeys(_ commits: [Commit]) -> [ObjectKey] {
        commits.flatMap(\.events).compactMap { event in
            if case .create(_, let key, _) = event { return key }
            return nil
        }
    }

    /// The keys the creates of the device's next push use.
    static func pushedCreates(_ engine: SyncEngine) throws -> [ObjectKey] {
        createdKeys(try engine.wireCommits().map { try Commit(encoded: $0.payload) })
    }

    /// The scope: the commits `body` makes in a store of its own.
    static func scope(_ body: (Store) throws -> Void) throws -> [Commit] {
        let server = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [RebaseKeyItem.self]))
        try body(server)
        var reader = server.journalForReading.reader(from: 1)
        var commits: [Commit] = []
        while let commit = try reader.next() { commits.append(commit) }
        return commits
    }

    /// A new device that has taken in `scope`, and its session's bookkeeping.
    static func device(following scope: [Commit]) throws -> (Store, SyncEngine) {
        let device = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [RebaseKeyItem.self]))
        var engine = try SyncEngine(store: device, folder: nil)
        try engine.absorb(ListRebaseBookkeepingTests.wire(scope))
        try engine.rebaseAndCollect(store: device)
        return (device, engine)
    }

    @Test func aCreateNeverTakesAKeyTheScopeUsedBefore() throws {
        // The scope: an item created, then deleted.
        let scope = try Self.scope { server in
            let old = RebaseKeyItem()
            old.name = "old"
            try server.write { server.add(old) }
            try server.write { server.delete(old) }
        }
        let usedKey = try #require(Self.createdKeys(scope).first)

        // A device that never saw that item: its store's first key is the one the scope used.
        var (device, engine) = try Self.device(following: scope)
        let mine = RebaseKeyItem()
        mine.name = "new"
        try device.write { device.add(mine) }
        try engine.rebaseAndCollect(store: device)

        let created = try Self.pushedCreates(engine)
        #expect(created.count == 1)
        #expect(!created.contains(usedKey), "the push reuses key \(usedKey), whose object the scope deleted")
        // The device's own object keeps its key: the scope's is paired with it.
        #expect(device.objects(RebaseKeyItem.self).map(\.name) == ["new"])
    }

    @Test func aCreateAtAKeyTheScopeNeverUsedKeepsIt() throws {
        // The scope: one item, still there.
        let scope = try Self.scope { server in try server.write { server.add(RebaseKeyItem()) } }

        // A device that has it creates another: at its next key, which the scope never used.
        var (device, engine) = try Self.device(following: scope)
        try device.write { device.add(RebaseKeyItem()) }
        let localKey = try #require(device.syncCommittedState.objects(table: 0).map(\.key).max())
        try engine.rebaseAndCollect(store: device)
        #expect(try Self.pushedCreates(engine) == [localKey])
    }
}
