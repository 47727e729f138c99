import Chronicle
@_spi(SyncServer) @testable import ChronicleSync
import Foundation
import Testing

/// The rule a device's pending list edits follow when they are rebased
/// over commits the server ordered before them (the article "Syncing
/// across devices", "The conflict rule"). `Rebase` and `ListEdit` are the client's
/// internals: without a server no public call reaches them (the tests
/// through sessions and a real server are in `Server/Tests`).
@Suite("Sync list rebase")
struct ListTransformTests {
    // MARK: One edit over another

    @Test(arguments: [
        // A pending insert after a remote insert at or before it moves up;
        // at one position the remote element (ordered first) stays first.
        (ListEdit.insert(3), ListEdit.insert(1), ListEdit.insert(4) as ListEdit?),
        (.insert(3), .insert(3), .insert(4)),
        (.insert(3), .insert(4), .insert(3)),
        // After a remote remove before it, it moves down.
        (.insert(3), .remove(0), .insert(2)),
        (.insert(3), .remove(3), .insert(3)),
        // A remove of an element the remote removed comes to nothing.
        (.remove(2), .remove(2), nil),
        (.remove(2), .remove(1), .remove(1)),
        (.remove(2), .insert(0), .remove(3)),
        (.replace(2), .remove(2), nil),
        // An edit of an element the remote moved follows it.
        (.remove(0), .move(from: 0, to: 3), .remove(3)),
        (.replace(3), .move(from: 0, to: 3), .replace(2)),
        // Of two moves of one element the later (pending) wins.
        (.move(from: 1, to: 0), .move(from: 1, to: 3), .move(from: 3, to: 0)),
        // A move of an element the remote removed comes to nothing.
        (.move(from: 1, to: 0), .remove(1), nil),
    ])
    func aPendingEditOverARemoteOne(pending: ListEdit, remote: ListEdit, expected: ListEdit?) {
        #expect(pending.transformed(over: remote, isFirst: false) == expected)
    }

    /// Whatever two edits of one list, applying either and then the other
    /// transformed over it gives one list: the device and the server agree.
    @Test func everyPairOfEditsConverges() {
        for count in 0...4 {
            let list = (0..<count).map { "e\($0)" }
            for remote in Self.edits(count) {
                for pending in Self.edits(count) {
                    let serverOrder = Self.apply(pending.transformed(over: remote, isFirst: false), value: "P",
                                                 to: Self.apply(remote, value: "R", to: list))
                    let otherOrder = Self.apply(remote.transformed(over: pending, isFirst: true), value: "R",
                                                to: Self.apply(pending, value: "P", to: list))
                    if case .replace(let a) = remote, case .replace(let b) = pending, a == b { continue }  // Values differ, positions agree.
                    #expect(serverOrder == otherOrder, "\(list): remote \(remote), pending \(pending)")
                }
            }
        }
    }

    static func edits(_ count: Int) -> [ListEdit] {
        (0...count).map(ListEdit.insert) + (0..<count).map(ListEdit.remove) + (0..<count).map(ListEdit.replace)
            + (0..<count).flatMap { from in (0..<count).map { ListEdit.move(from: from, to: $0) } }
    }

    static func apply(_ edit: ListEdit?, value: String, to list: [String]) -> [String] {
        var list = list
        switch edit {
        case .insert(let index): list.insert(value, at: index)
        case .remove(let index): list.remove(at: index)
        case .replace(let index): list[index] = value
        case .move(let from, let to): list.insert(list.remove(at: from), at: to)
        case nil: break
        }
        return list
    }

    // MARK: Rebase

    /// A scope with one note whose tags are `tags` (commit 1), then the
    /// remote commits `remote` made of list edits of them.
    struct Scenario {
        let table = 0
        let key = ObjectKey(1)
        var commits: [Commit] = []

        init(tags: [String], remote: [[Event]]) {
            let type = TypeSchema(name: "Note", properties: [
                PropertySchema(name: "id", type: .int, isPrimaryKey: true),
                PropertySchema(name: "tags", type: .string, collection: .list),
            ])
            commits.append(Commit(version: 1, timestamp: Date(timeIntervalSince1970: 0), label: nil, metadata: [:], events: [
                .defineType(type),
                .create(table: table, key: key, values: [.int(1), .list(tags.map(PersistedValue.string))]),
            ]))
            for events in remote {
                commits.append(Commit(version: UInt64(commits.count + 1), timestamp: Date(timeIntervalSince1970: 0), label: nil, metadata: [:], events: events))
            }
        }

        func insert(_ value: String, at index: Int) -> Event {
            .listInsert(table: table, key: key, property: 1, index: index, value: .string(value))
        }
        func remove(at index: Int) -> Event { .listRemove(table: table, key: key, property: 1, index: index) }
        func move(_ from: Int, _ to: Int) -> Event { .listMove(table: table, key: key, property: 1, from: from, to: to) }

        func fold(_ commits: ArraySlice<Commit>) throws -> StoreState {
            var state = StoreState()
            for commit in commits { state = try state.applying(commit).state }
            return state
        }

        /// Rebases `pending` (local commits made on the scope at `base`,
        /// one after another) over the scope; the tags the scope then has.
        /// `madeOn`: the version the store showed (the base and any own commits after it).
        func rebase(_ pending: [[Event]], base: UInt64?, madeOn: Int? = nil, own: Set<UInt64> = []) throws -> [String] {
            let seen = madeOn ?? Int(base ?? 1)
            var local = try fold(commits[..<seen])
            var commits: [(id: UUID, commit: Commit, base: UInt64?)] = []
            for events in pending {
                let commit = Commit(version: local.version + 1, timestamp: Date(timeIntervalSince1970: 0), label: nil, metadata: [:], events: events)
                local = try local.applying(commit).state
                commits.append((UUID(), commit, base))
            }
            let scope = try fold(self.commits[...])
            var remaining = self.commits.dropFirst(1).makeIterator()
            let history = ListHistory(start: 1, objects: [TableKey(table: table, key: key)], own: own) { remaining.next() }
            var rebase = Rebase(scope: scope, local: local, pairs: KeyPairs(), touchedScope: [], history: history)
            try rebase.run(pending: commits, full: true)
            guard case .list(let tags)? = rebase.working.object(table: table, key: key)?.values[1] else { return [] }
            return tags.map { if case .string(let text) = $0 { text } else { "?" } }
        }
    }

    @Test func pendingInsertsLandBetweenTheNeighboursTheyWereInsertedBetween() throws {
        let scenario = Scenario(tags: ["a", "b", "c", "d"], remote: [])
        let remote = Scenario(tags: ["a", "b", "c", "d"], remote: [[scenario.insert("A1", at: 1)], [scenario.insert("A2", at: 3)]])
        // Made on [a, b, c, d]: [a, B1, b, c, d], then c removed, then B2 after b.
        let tags = try remote.rebase([[scenario.insert("B1", at: 1), scenario.remove(at: 3)], [scenario.insert("B2", at: 3)]], base: 1)
        #expect(tags == ["a", "A1", "B1", "b", "A2", "B2", "d"])
    }

    @Test func aRemoveOfAnElementTheServerRemovedComesToNothing() throws {
        let scenario = Scenario(tags: ["a", "b", "c"], remote: [])
        let remote = Scenario(tags: ["a", "b", "c"], remote: [[scenario.remove(at: 1)]])
        #expect(try remote.rebase([[scenario.remove(at: 1)]], base: 1) == ["a", "c"])
        // The element after it is not removed instead.
        #expect(try remote.rebase([[scenario.remove(at: 1), scenario.insert("x", at: 1)]], base: 1) == ["a", "x", "c"])
    }

    @Test func anEditFollowsAnElementTheServerMoved() throws {
        let scenario = Scenario(tags: ["a", "b", "c"], remote: [])
        let remote = Scenario(tags: ["a", "b", "c"], remote: [[scenario.move(0, 2)]])   // [b, c, a]
        #expect(try remote.rebase([[scenario.remove(at: 0)]], base: 1) == ["b", "c"])
        #expect(try remote.rebase([[scenario.insert("x", at: 1)]], base: 1) == ["x", "b", "c", "a"])
    }

    /// A pending commit made after the store showed some of the server's
    /// edits is transformed over the later ones only.
    @Test func aCommitIsTransformedOverWhatItDidNotSee() throws {
        let scenario = Scenario(tags: ["a", "b"], remote: [])
        let remote = Scenario(tags: ["a", "b"], remote: [[scenario.insert("r1", at: 0)], [scenario.insert("r2", at: 0)]])
        // Made on [r1, a, b] (version 2): after a.
        #expect(try remote.rebase([[scenario.insert("x", at: 2)]], base: 2) == ["r2", "r1", "a", "x", "b"])
        // Made on [a, b] (version 1): after a as well.
        #expect(try remote.rebase([[scenario.insert("x", at: 1)]], base: 1) == ["r2", "r1", "a", "x", "b"])
        // This device's own commit right after the base was already in its store.
        #expect(try remote.rebase([[scenario.insert("x", at: 2)]], base: 1, madeOn: 2, own: [2]) == ["r2", "r1", "a", "x", "b"])
    }

    /// Without a known base (a progress file from before bases were kept),
    /// an edit applies at its index, clamped.
    @Test func withoutABaseAnEditKeepsItsIndex() throws {
        let scenario = Scenario(tags: ["a", "b"], remote: [])
        let inserted = Scenario(tags: ["a", "b"], remote: [[scenario.insert("r", at: 0)]])
        #expect(try inserted.rebase([[scenario.insert("x", at: 1)]], base: nil) == ["r", "x", "a", "b"])
        let removed = Scenario(tags: ["a", "b"], remote: [[scenario.remove(at: 1)]])
        #expect(try removed.rebase([[scenario.insert("x", at: 2)]], base: nil) == ["a", "x"])
        #expect(try removed.rebase([[scenario.remove(at: 1)]], base: nil) == ["a"])
    }
}

/// A note with a list, for the engine-level list rebase test.
final class Task29ListNote: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var tags: List<String>
}
extension Task29ListNote: @unchecked Sendable {}

/// The session's bookkeeping (`SyncEngine`) fed the server's answers by
/// hand: which scope version each local commit was made on, and which of
/// the scope's commits are this device's own.
@Suite("Sync list rebase bookkeeping")
struct ListRebaseBookkeepingTests {
    static func wire(_ commits: [Commit]) -> SyncWire.Pull {
        SyncWire.Pull(head: commits.last?.version ?? 0, snapshot: nil,
                      commits: commits.map { SyncWire.WireCommit(id: UUID(), payload: $0.encoded()) })
    }

    /// A commit this device made before the session had looked at it was
    /// made on the device's own accepted commit: only the server's commit
    /// after that is concurrent with it.
    @Test func aCommitMadeOnAnAcceptedOneIsTransformedOverLaterCommitsOnly() throws {
        let server = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [Task29ListNote.self]))
        try server.write {
            let note = Task29ListNote()
            note.id = 1
            note.tags.append(contentsOf: ["a", "b"])
            server.add(note)
        }
        var reader = server.journalForReading.reader(from: 1)
        var scope: [Commit] = []
        while let commit = try reader.next() { scope.append(commit) }

        let device = try Store(configuration: .inMemory(identifier: UUID().uuidString, objectTypes: [Task29ListNote.self]))
        var engine = try SyncEngine(store: device, folder: nil)
        try engine.absorb(Self.wire(scope))
        try engine.rebaseAndCollect(store: device)
        let note = try #require(device.object(ofType: Task29ListNote.self, forPrimaryKey: 1))

        // Pushed and accepted: [x, a, b].
        try device.write { note.tags.insert("x", at: 0) }
        try engine.rebaseAndCollect(store: device)
        #expect(engine.wireCommits().count == 1)
        try engine.accepted(versions: [engine.serverVersion + 1], found: false)
        // Made on [x, a, b], before the session looks again: y between a and b.
        try device.write { note.tags.insert("y", at: 2) }
        // Another device's insert at the front, made on [x, a, b].
        let state = engine.mirror.state
        let table = try #require(state.tableIndex(named: "Task29ListNote"))
        let key = try #require(state.key(table: table, primaryKey: .int(1)))
        let property = try #require(state.schema[table].propertyIndex(named: "tags"))
        let remote = Commit(version: engine.serverVersion + 1, timestamp: Date(), events: [
            .listInsert(table: table, key: key, property: property, index: 0, value: .string("r")),
        ])
        try engine.absorb(Self.wire([remote]))
        try engine.rebaseAndCollect(store: device)

        #expect(Array(note.tags) == ["r", "x", "a", "y", "b"])
    }
}
