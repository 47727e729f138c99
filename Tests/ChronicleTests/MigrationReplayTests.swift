import Foundation
import Testing
@testable import Chronicle

/// Replaying a journal with a commit before a migration left out: the
/// migration's schema changes replay onto the state without that commit;
/// values its closure computed from that commit are a typed error.
@Suite("Schema: replaying around a migration")
struct MigrationReplayTests {
    /// Release 1's journal, then commit 3 (`edit`, with release 1's class),
    /// then the migration (commit 4) with `types` and `migration`, then
    /// commit 5 (`after`, with the migrated store).
    static func journal(edit: @escaping (Store) -> Void, types: [ObjectBase.Type],
                        migration: (@Sendable (Migration, UInt64) throws -> Void)? = nil,
                        after: @escaping (Store) -> Void = { _ in }) throws -> Journal {
        let url = try PetJournal.versionOne()
        do {
            let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [PetV1.Pet.self]))
            try store.write(label: "edit") { edit(store) }
            try store.close()
        }
        let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: types, migration: migration))
        try store.write(label: "after") { after(store) }
        try store.close()
        return try Journal(contentsOf: url)
    }

    @Test func excludingACommitBeforeARenameReplaysTheRenameOntoTheStateWithoutIt() throws {
        let journal = try Self.journal(edit: { $0.object(ofType: PetV1.Pet.self, forPrimaryKey: 1)!.name = "Rexy" },
                                       types: [PetRenamed.Pet.self], migration: { migration, _ in
            migration.renameProperty(onType: "Pet", from: "age", to: "years")
        }, after: { $0.object(ofType: PetRenamed.Pet.self, forPrimaryKey: 2)!.years = 2 })
        #expect(journal.lastVersion == 5)
        let replay = try Store.replaying(journal, excluding: [3])
        #expect(replay.isFinished && replay.skippedEvents.isEmpty)
        let pets = replay.store.objects(PetRenamed.Pet.self)
        #expect(pets.map(\.name) == ["Rex", "Kit"], "commit 3 never happened")
        #expect(pets.map(\.years) == [3, 2], "the rename and the commit after it did")
        #expect(replay.store.committedState().schemaVersion == 1)
        // Without exclusions it is the journal's own state.
        #expect(try Store.replaying(journal).store.committedState().isContentEqual(journal.state(at: 5)))
    }

    @Test func excludingACommitBeforeAConversionOfOtherObjectsReplaysIt() throws {
        let journal = try Self.journal(edit: { $0.object(ofType: PetV1.Owner.self, forPrimaryKey: 1)!.name = "Annie" },
                                       types: [PetAgeDouble.Pet.self], migration: { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { old, new in
                new?["age"] = .double(Double(old?["age", as: Int.self] ?? 0) * 12)
            }
        })
        let replay = try Store.replaying(journal, excluding: [3])
        #expect(replay.isFinished && replay.skippedEvents.isEmpty)
        #expect(replay.store.objects(PetAgeDouble.Pet.self).map(\.age) == [36, 12])
        #expect(replay.store.objects(PetAgeDouble.Owner.self).map(\.name) == ["Ann"])
    }

    @Test func aMigrationThatSetValuesOfAnObjectTheExcludedCommitChangedIsATypedError() throws {
        let journal = try Self.journal(edit: { $0.object(ofType: PetV1.Pet.self, forPrimaryKey: 1)!.age = 5 },
                                       types: [PetAgeDouble.Pet.self], migration: { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { old, new in
                new?["age"] = .double(Double(old?["age", as: Int.self] ?? 0) * 12)
            }
        })
        // The migration recorded Rex's age as 60.0, computed from commit 3's 5.
        #expect { _ = try Store.replaying(journal, excluding: [3]) } throws: { error in
            guard case .migrationDependsOnExcludedCommit(4, 3, "Pet") = error as? StoreError else { return false }
            return "\(error)".contains("replay through version 3")
        }
        let replay = try Store.replaying(journal, excluding: [3], paused: true)
        try replay.advance(to: 3)
        #expect(throws: StoreError.self) { try replay.step() }
        #expect(replay.store.version == 3 && replay.nextVersion == 4, "it stopped before the migration")
        #expect(replay.store.objects(PetV1.Pet.self).map(\.age) == [3, 1])
        // Excluding a commit after the migration is no such case.
        #expect(try Store.replaying(journal, excluding: [5]).isFinished)
    }
}
