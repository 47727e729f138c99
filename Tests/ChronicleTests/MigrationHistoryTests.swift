import Foundation
import Testing
@testable import Chronicle

/// History survives a migration: each version reads with its own schema,
/// a renamed property's history follows it, and the `chronicle` tool shows
/// the migration.
@Suite("Schema: history across migrations", .serialized)
struct MigrationHistoryTests {
    /// Release 1's journal, migrated to `age` renamed `years`, then one more write.
    static func renamedJournal() throws -> URL {
        let url = try PetJournal.versionOne()
        let configuration = MigrationTests.configuration(url, version: 1, types: [PetRenamed.Pet.self]) { migration, _ in
            migration.renameProperty(onType: "Pet", from: "age", to: "years")
        }
        let store = try Store(configuration: configuration)
        try store.write(label: "birthday") { store.object(ofType: PetRenamed.Pet.self, forPrimaryKey: 1)!.years = 4 }
        try store.close()
        return url
    }

    @Test func theHistoryOfARenamedPropertyFollowsTheRename() throws {
        let url = try Self.renamedJournal()
        let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: [PetRenamed.Pet.self]))
        let rex = try #require(store.object(ofType: PetRenamed.Pet.self, forPrimaryKey: 1))
        let history = try store.history(of: rex, keyPath: \.years)
        #expect(history.map(\.version) == [2, 4])
        #expect(history.map(\.newValue) == [3, 4])
        #expect(history.last?.oldValue == 3)
        // The journal alone, without the classes, follows it too.
        let journal = try Journal(contentsOf: url)
        let state = try journal.state(at: 4)
        let table = try #require(state.tableIndex(named: "Pet"))
        #expect(try journal.history(table: table, key: try #require(state.key(table: table, primaryKey: .int(1))), path: ["years"]).map(\.version) == [2, 4])
    }

    @Test func aDiffAcrossAMigrationNamesTheSchemaChangesAndComparesByName() throws {
        let url = try PetJournal.versionOne()
        let configuration = MigrationTests.configuration(url, version: 1, types: [PetColor.Pet.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { _, new in new?["name"] = .string("Renamed") }
        }
        let store = try Store(configuration: configuration)
        let diff = try store.diff(from: 2, to: 3)
        #expect(diff.schemaChanges.contains { if case .changeSchema(.setSchemaVersion(1)) = $0 { true } else { false } })
        #expect(diff.schemaChanges.contains { if case .addProperty(_, let property) = $0 { property.name == "color" } else { false } })
        #expect(diff.modified.count == 2)
        #expect(diff.modified.allSatisfy { $0.changes.map(\.name) == ["name"] })
        // The version before still reads with its own schema.
        let past = try store.frozen(at: 2).state
        #expect(past.schema[past.tableIndex(named: "Pet")!].propertyIndex(named: "color") == nil)
    }

    @Test func chronicleLogAndShowPresentTheMigration() throws {
        let url = try Self.renamedJournal()
        let log = try CLITests.run(["log", url.path])
        #expect(log.status == 0)
        let line = try #require(log.out.split(separator: "\n").first { $0.contains("migration 0 → 1") })
        #expect(line.contains("schema version 1") && line.contains("renameProperty Pet.age renamed to years"), "\(line)")
        let show = try CLITests.run(["show", url.path, "3"])
        #expect(show.status == 0)
        #expect(show.out.contains("chronicle.migration.from: \"0\"") && show.out.contains("chronicle.migration.to: \"1\""), "\(show.out)")
        #expect(show.out.contains("renameProperty Pet.age renamed to years"), "\(show.out)")
        #expect(show.out.contains("setSchemaVersion schema version 1"), "\(show.out)")
    }
}
