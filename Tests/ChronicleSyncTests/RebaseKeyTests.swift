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
    static func wire(_ commits: [Commit]) -> SyncWire.Pull { ListRebaseBookkeepingTests.wire(commits) }

    /// The keys the creates of the device's next push use.
    static func pushedCreates(_ engine: SyncEngine) throws -> [ObjectKey] {
        try engine.wireCommits().flatMap { try Commit(encoded: $0.payload).events }.compactMap { event in
            if case .create(_, let key, _) = event { return key }
            return nil
        }
    }

    @Test func aCreateNeverTakesAKeyTheScopeUsedBefore() throws {
        // The scope: an item created, then deleted.
        let server = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [RebaseKeyItem.self]))
        let old = RebaseKeyItem()
        old.name = "old"
        try server.write { server.add(old) }
        try server.write { server.delete(old) }
        var reader = server.journalForReading.reader(from: 1)
        var scope: [Commit] = []
        while let commit = try reader.next() { scope.append(commit) }
        let usedKey = try #require(scope.lazy.flatMap(\.events).compactMap { event -> ObjectKey? in
            if case .create(_, let key, _) = event { return key }
            return nil
        }.first)

        // A device that never saw that item: its store's first key is the one the scope used.
        let device = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [RebaseKeyItem.self]))
        var engine = try SyncEngine(store: device, folder: nil)
        try engine.absorb(Self.wire(scope))
        try engine.rebaseAndCollect(store: device)
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
        let server = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [RebaseKeyItem.self]))
        try server.write { server.add(RebaseKeyItem()) }
        var reader = server.journalForReading.reader(from: 1)
        var scope: [Commit] = []
        while let commit = try reader.next() { scope.append(commit) }

        // A device that has it creates another: at its next key, which the scope never used.
        let device = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [RebaseKeyItem.self]))
        var engine = try SyncEngine(store: device, folder: nil)
        try engine.absorb(Self.wire(scope))
        try engine.rebaseAndCollect(store: device)
        let mine = RebaseKeyItem()
        try device.write { device.add(mine) }
        let localKey = try #require(device.syncCommittedState.objects(table: 0).map(\.key).max())
        try engine.rebaseAndCollect(store: device)
        #expect(try Self.pushedCreates(engine) == [localKey])
    }
}
