import Foundation
import Synchronization
import Testing
@testable import Chronicle

/// Schema versions and migrations, through the public API: each change
/// kind, reopened, with values, queries, indexes and history checked.
@Suite("Schema: migrations")
struct MigrationTests {
    /// A configuration of `url` at `version`, with `types` and `migration`.
    static func configuration(_ url: URL, version: UInt64, types: [ObjectBase.Type],
                              migration: (@Sendable (Migration, UInt64) throws -> Void)? = nil) -> Store.Configuration {
        var configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: types)
        configuration.schemaVersion = version
        configuration.migration = migration
        return configuration
    }

    /// Opens, checks, closes; the store again after reopening (no migration runs twice).
    static func openTwice(_ configuration: Store.Configuration, _ check: (Store) throws -> Void) throws {
        do {
            let store = try Store(configuration: configuration)
            try check(store)
            try store.close()
        }
        var again = configuration
        again.migration = { _, _ in Issue.record("the migration ran twice") }
        let store = try Store(configuration: again)
        try check(store)
        try store.close()
    }

    @Test func aRetypedPropertyIsConvertedInOneCommitRecordedAsAMigration() throws {
        let url = try PetJournal.versionOne()
        let before = try Journal(contentsOf: url).state(at: 2)
        let configuration = Self.configuration(url, version: 1, types: [PetAgeDouble.Pet.self]) { migration, old in
            #expect(old == 0)
            migration.enumerateObjects(ofType: "Pet") { old, new in
                new?["age"] = .double(Double(old?["age", as: Int.self] ?? 0) + 0.5)
            }
        }
        try Self.openTwice(configuration) { store in
            #expect(store.objects(PetAgeDouble.Pet.self).map(\.age) == [3.5, 1.5])
            #expect(store.objects(PetAgeDouble.Pet.self).filter(#Predicate { $0.age > 2 }).map(\.name) == ["Rex"])
            #expect(store.objects(PetAgeDouble.Owner.self).first?.pets.map(\.age) == [3.5, 1.5])
        }
        let journal = try Journal(contentsOf: url)
        let commits = Array(journal.commits())
        #expect(commits.count == 3)
        let migration = try #require(commits.last)
        #expect(migration.label == "migration 0 → 1")
        #expect(migration.metadata[Store.MigrationMetadata.fromKey] == "0" && migration.metadata[Store.MigrationMetadata.toKey] == "1")
        #expect(migration.events.contains(.changeSchema(.setSchemaVersion(1))))
        // History is not rewritten: the versions before read as they were.
        #expect(try journal.state(at: 2).isContentEqual(before))
        let after = try journal.state(at: 3)
        #expect(after.schemaVersion == 1)
        let table = try #require(after.tableIndex(named: "Pet"))
        #expect(after.schema[table].properties.first { $0.name == "age" }?.type == .double)
    }

    @Test func aRenamedPropertyKeepsItsValuesAndIndex() throws {
        let url = try PetJournal.versionOne()
        let configuration = Self.configuration(url, version: 1, types: [PetRenamed.Pet.self]) { migration, _ in
            migration.renameProperty(onType: "Pet", from: "age", to: "years")
        }
        try Self.openTwice(configuration) { store in
            #expect(store.objects(PetRenamed.Pet.self).map(\.years) == [3, 1])
            #expect(store.objects(PetRenamed.Pet.self).filter(#Predicate { $0.years == 3 }).map(\.name) == ["Rex"])
            let state = store.committedState()
            let table = try #require(state.tableIndex(named: "Pet"))
            let years = try #require(state.schema[table].propertyIndex(named: "years"))
            #expect(state.keys(table: table, property: years, equalTo: .int(1))?.count == 1, "the index follows the rename")
            #expect(state.schema[table].propertyIndex(named: "age") == nil)
        }
        let journal = try Journal(contentsOf: url)
        let migration = try #require(Array(journal.commits()).last)
        #expect(migration.events.contains { if case .changeSchema(.renameProperty(_, _, "years")) = $0 { true } else { false } })
    }

    @Test func aRemovedPropertyNeedsOnlyTheNewVersionAndStaysInHistory() throws {
        let url = try PetJournal.versionOne()
        try Self.openTwice(Self.configuration(url, version: 1, types: [PetNoAge.Pet.self])) { store in
            #expect(store.objects(PetNoAge.Pet.self).map(\.name) == ["Rex", "Kit"])
            let state = store.committedState()
            #expect(state.schema[state.tableIndex(named: "Pet")!].propertyIndex(named: "age") == nil)
            // The version before the migration still has the ages.
            let past = try store.frozen(at: 2).state
            let table = try #require(past.tableIndex(named: "Pet"))
            let age = try #require(past.schema[table].propertyIndex(named: "age"))
            #expect(past.objects(table: table).map { $0.1.values[age] } == [.int(3), .int(1)])
        }
    }

    @Test func anAddedPropertyCanBeComputedFromOldValues() throws {
        let url = try PetJournal.versionOne()
        let configuration = Self.configuration(url, version: 1, types: [PetColor.Pet.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { old, new in
                if old?["age", as: Int.self] == 1 { new?["color"] = .string("white") }
            }
        }
        try Self.openTwice(configuration) { store in
            #expect(store.objects(PetColor.Pet.self).map(\.color) == ["brown", "white"])
            #expect(store.objects(PetColor.Pet.self).map(\.legs) == [4, 4])
            #expect(store.objects(PetColor.Pet.self).filter(#Predicate { $0.color == "white" }).map(\.name) == ["Kit"])
        }
    }

    @Test func optionalBecomesRequiredPrimaryKeyMovesAndIndexesFollow() throws {
        let url = try PetJournal.versionOne()
        do {
            let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [PetV1.Pet.self]))
            try store.write { store.object(ofType: PetV1.Pet.self, forPrimaryKey: 1)!.nickname = "Rexy" }
            try store.close()
        }
        let configuration = Self.configuration(url, version: 1, types: [PetReshaped.Pet.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { old, new in
                if old?["nickname"] == .null { new?["nickname"] = .string("none") }
            }
        }
        try Self.openTwice(configuration) { store in
            #expect(store.objects(PetReshaped.Pet.self).map(\.nickname) == ["Rexy", "none"])
            #expect(store.object(ofType: PetReshaped.Pet.self, forPrimaryKey: "Kit")?.id == 2)
            let state = store.committedState()
            let pets = try #require(state.tableIndex(named: "Pet"))
            let age = try #require(state.schema[pets].propertyIndex(named: "age"))
            #expect(state.keys(table: pets, property: age, equalTo: .int(3)) == nil, "the index on age is gone")
            let owners = try #require(state.tableIndex(named: "Owner"))
            let name = try #require(state.schema[owners].propertyIndex(named: "name"))
            #expect(state.keys(table: owners, property: name, equalTo: .string("Ann"))?.count == 1, "the new index on name")
            // A duplicate of the new primary key is rejected.
            #expect(throws: StoreError.self) {
                try store.write { store.create(PetReshaped.Pet.self, value: ["name": "Rex"]) }
            }
        }
    }

    @Test func aNewPrimaryKeyWithDuplicateValuesFailsTheMigrationAndWritesNothing() throws {
        let url = try PetJournal.versionOne()
        do {
            let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [PetV1.Pet.self]))
            try store.write { store.object(ofType: PetV1.Pet.self, forPrimaryKey: 2)!.name = "Rex" }
            try store.close()
        }
        let bytes = try Data(contentsOf: url)
        #expect {
            _ = try Store(configuration: Self.configuration(url, version: 1, types: [PetReshaped.Pet.self]))
        } throws: { error in
            guard case StoreError.schema(.migrationFailed(0, 1, let reason)) = error else { return false }
            return reason.contains("Rex")
        }
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func aRenamedTypeKeepsItsObjectsAndLinks() throws {
        let url = try PetJournal.versionOne()
        let configuration = Self.configuration(url, version: 1, types: [PetAsAnimal.Animal.self]) { migration, _ in
            migration.renameType(from: "Pet", to: "Animal")
            migration.enumerateObjects(ofType: "Animal") { old, new in
                #expect(old?.typeName == "Pet" && new?.typeName == "Animal")
            }
        }
        try Self.openTwice(configuration) { store in
            #expect(store.objects(PetAsAnimal.Animal.self).map(\.name) == ["Rex", "Kit"])
            #expect(store.objects(PetAsAnimal.Owner.self).first?.pets.map(\.name) == ["Rex", "Kit"])
            #expect(store.objects(PetAsAnimal.Animal.self).first?.owner?.name == "Ann")
            #expect(store.committedState().tableIndex(named: "Pet") == nil)
        }
    }

    @Test func aDeletedTypeAndARetargetedLink() throws {
        let url = try PetJournal.versionOne()
        let configuration = Self.configuration(url, version: 1, types: [PetKept.Pet.self]) { migration, _ in
            let keeper = migration.create("Keeper", values: ["name": .string("Ann's keeper")])
            migration.enumerateObjects(ofType: "Pet") { _, new in
                new?["keeper"] = keeper?.asLink
            }
            migration.deleteData(forType: "Owner")
        }
        try Self.openTwice(configuration) { store in
            #expect(store.objects(PetKept.Pet.self).map { $0.keeper?.name } == ["Ann's keeper", "Ann's keeper"])
            #expect(store.committedState().tableIndex(named: "Owner") == nil)
            #expect(store.objects(PetKept.Keeper.self).count == 1)
        }
    }

    @Test func aTopLevelTypeBecomesEmbeddedAndBack() throws {
        let url = try PetJournal.versionOne(#function)
        try FileManager.default.removeItem(at: url)
        do {
            let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [HomeV1.Resident.self]))
            try store.write {
                for id in 1...2 {
                    let resident = HomeV1.Resident()
                    resident.id = id
                    resident.home = HomeV1.Home()
                    resident.home?.city = "City \(id)"
                    store.add(resident)
                }
                store.add(HomeV1.Home())  // owned by nobody: deleted when Home becomes embedded
            }
            try store.close()
        }
        try Self.openTwice(Self.configuration(url, version: 1, types: [HomeV2.Resident.self])) { store in
            #expect(store.objects(HomeV2.Resident.self).map { $0.home?.city } == ["City 1", "City 2"])
            #expect(store.objects(HomeV2.Home.self).count == 2)
        }
        try Self.openTwice(Self.configuration(url, version: 2, types: [HomeV1.Resident.self])) { store in
            #expect(store.objects(HomeV1.Home.self).count == 2)
            let state = store.committedState()
            #expect(state.schema[state.tableIndex(named: "Home")!].isEmbedded == false)
        }
    }

    @Test func aMigrationThatThrowsLeavesTheStoreUnopenedAndTheJournalUnchanged() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "not today" } }
        let url = try PetJournal.versionOne()
        let bytes = try Data(contentsOf: url)
        #expect {
            _ = try Store(configuration: Self.configuration(url, version: 1, types: [PetAgeDouble.Pet.self]) { migration, _ in
                migration.enumerateObjects(ofType: "Pet") { _, new in new?["age"] = .double(1) }
                throw Refused()
            })
        } throws: { error in
            guard case StoreError.schema(.migrationFailed(0, 1, let reason)) = error else { return false }
            return reason == "not today"
        }
        #expect(try Data(contentsOf: url) == bytes)
        let store = try Store(configuration: .init(fileURL: url, objectTypes: [PetV1.Pet.self]))
        #expect(store.committedState().schemaVersion == 0 && store.objects(PetV1.Pet.self).map(\.age) == [3, 1])
    }

    @Test func aJournalOfANewerSchemaVersionDoesNotOpen() throws {
        let url = try PetJournal.versionOne()
        do { _ = try Store(configuration: Self.configuration(url, version: 3, types: [PetV1.Pet.self])) }
        #expect {
            _ = try Store(configuration: Self.configuration(url, version: 2, types: [PetV1.Pet.self]))
        } throws: { error in
            guard case StoreError.schema(.newerSchemaVersion(journal: 3, app: 2)) = error else { return false }
            return "\(error)".contains("newer")
        }
    }

    @Test func aNewJournalRecordsItsVersionWithoutRunningTheMigration() throws {
        let store = try Store(configuration: {
            var configuration = Store.Configuration.inMemory(objectTypes: [PetV1.Pet.self])
            configuration.schemaVersion = 4
            configuration.migration = { _, _ in Issue.record("nothing to migrate") }
            return configuration
        }())
        #expect(store.committedState().schemaVersion == 4)
        #expect(Array(store.journalForReading.commits()).first?.label == "schema version 4")
    }

    @Test func aCheckpointFileKeepsTheSchemaVersion() throws {
        let url = try PetJournal.versionOne()
        do {
            let store = try Store(configuration: Self.configuration(url, version: 2, types: [PetNoAge.Pet.self]))
            try store.writeCheckpoint()
            try store.close()
        }
        let reopened = try Store(configuration: Self.configuration(url, version: 2, types: [PetNoAge.Pet.self]) { _, _ in
            Issue.record("the migration ran again")
        })
        #expect(reopened.committedState().schemaVersion == 2)
        #expect(reopened.checkpoints.fileStatus == .loaded(version: 3))
    }

    /// A kill at any moment of the migration's append leaves the journal
    /// before the migration (the old app opens it as it was) or after it.
    @Test func aMigrationCutShortAtAnyByteIsBeforeOrAfterItWhole() throws {
        let url = try PetJournal.versionOne()
        let before = try Data(contentsOf: url)
        let configuration = Self.configuration(url, version: 1, types: [PetAgeDouble.Pet.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { old, new in
                new?["age"] = .double(Double(old?["age", as: Int.self] ?? 0))
            }
        }
        do { _ = try Store(configuration: configuration) }
        let after = try Data(contentsOf: url)
        try? FileManager.default.removeItem(at: url.appendingPathExtension("checkpoint"))
        for length in before.count..<after.count {
            try after.prefix(length).write(to: url)
            let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [PetV1.Pet.self]))
            #expect(store.version == 2 && store.objects(PetV1.Pet.self).map(\.age) == [3, 1], "cut at \(length)")
            try store.close()
            try? FileManager.default.removeItem(at: url.appendingPathExtension("checkpoint"))
        }
        try after.write(to: url)
        let migrated = try Store(configuration: configuration)
        #expect(migrated.version == 3 && migrated.objects(PetAgeDouble.Pet.self).map(\.age) == [3, 1])
    }
}
