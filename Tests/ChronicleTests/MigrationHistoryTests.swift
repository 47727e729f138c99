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
        // The added properties' defaults count too (they did not exist before).
        #expect(diff.modified.allSatisfy { $0.changes.map(\.name) == ["name", "color", "legs"] })
        #expect(diff.modified.first?.changes.last == PropertyValueChange(name: "legs", oldValue: .null, newValue: .int(4)))
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

    /// Release 1's journal, migrated with `migration`, then Rex's birthday (`age`, by whatever name, set to 4).
    static func migratedJournal(types: [ObjectBase.Type], birthday: @escaping (Store) -> Void,
                                _ migration: @escaping @Sendable (Migration, UInt64) throws -> Void) throws -> URL {
        let url = try PetJournal.versionOne()
        let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: types, migration: migration))
        try store.write(label: "birthday") { birthday(store) }
        try store.close()
        return url
    }

    @Test func theHistoryOfAPropertyFollowsATypeRename() throws {
        let url = try Self.migratedJournal(types: [PetAsAnimal.Animal.self],
                                           birthday: { $0.object(ofType: PetAsAnimal.Animal.self, forPrimaryKey: 1)!.age = 4 }) { migration, _ in
            migration.renameType(from: "Pet", to: "Animal")
        }
        let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: [PetAsAnimal.Animal.self]))
        let rex = try #require(store.object(ofType: PetAsAnimal.Animal.self, forPrimaryKey: 1))
        let history = try store.history(of: rex, keyPath: \.age)
        #expect(history.map(\.version) == [2, 4])
        #expect(history.map(\.newValue) == [3, 4])
        #expect(history.first?.oldValue == nil, "the first entry is its creation, as a Pet")
        let objectHistory = try store.history(of: rex)
        #expect(objectHistory.map(\.version) == [2, 4])
        #expect(objectHistory.last?.change == .modified([PropertyValueChange(name: "age", oldValue: .int(3), newValue: .int(4))]))
        // `chronicle history` finds it by either name.
        for name in ["Animal", "Pet"] {
            let run = try CLITests.run(["history", url.path, name, "1", "age"])
            #expect(run.status == 0, "\(name): \(run.err)")
            #expect(run.out.split(separator: "\n").count == 3, "\(name): \(run.out)")
            #expect(run.out.contains("(created) → 3") && run.out.contains("3 → 4"), "\(name): \(run.out)")
        }
    }

    @Test func theHistoryOfAPropertyFollowsATypeAndPropertyRenameTogether() throws {
        let url = try Self.migratedJournal(types: [PetAsAnimalYears.Animal.self],
                                           birthday: { $0.object(ofType: PetAsAnimalYears.Animal.self, forPrimaryKey: 1)!.years = 4 }) { migration, _ in
            migration.renameType(from: "Pet", to: "Animal")
            migration.renameProperty(onType: "Animal", from: "age", to: "years")
        }
        let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: [PetAsAnimalYears.Animal.self]))
        let rex = try #require(store.object(ofType: PetAsAnimalYears.Animal.self, forPrimaryKey: 1))
        #expect(try store.history(of: rex, keyPath: \.years).map(\.newValue) == [3, 4])
        let run = try CLITests.run(["history", url.path, "Animal", "1", "years"])
        #expect(run.status == 0 && run.out.contains("(created) → 3") && run.out.contains("3 → 4"), "\(run.out)\(run.err)")
        // A diff across the migration reaches the renamed property under its new name, both ways.
        let diff = try store.diff(from: 2, to: 4)
        let change = try #require(diff.modified.first { $0.primaryKey == .int(1) })
        #expect(change.typeName == "Animal")
        #expect(change.changes == [PropertyValueChange(name: "years", oldValue: .int(3), newValue: .int(4))])
        let undo = try store.diff(from: 4, to: 2)
        #expect(undo.modified.first { $0.primaryKey == .int(1) }?.changes
                    == [PropertyValueChange(name: "years", oldValue: .int(4), newValue: .int(3))])
        #expect(try Journal(contentsOf: url).diff(from: 2, to: 4).modified == diff.modified)
    }

    @Test func theHistoryOfAnObjectFollowsItWhenATypeBeforeItIsRemoved() throws {
        let url = try PetJournal.versionOne()
        try FileManager.default.removeItem(at: url)
        do {
            // `Tag` is table 0, so removing it moves `Pet` from table 1 to 0.
            let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [EvolutionTag.self, PetV1.Pet.self]))
            try store.write { store.add(EvolutionTag()) }
            try store.close()
        }
        try PetJournal.writeVersionOne(at: url)
        let configuration = MigrationTests.configuration(url, version: 1, types: [PetV1.Pet.self]) { migration, _ in
            migration.deleteData(forType: "EvolutionTag")
        }
        let store = try Store(configuration: configuration)
        #expect(store.committedState().tableIndex(named: "EvolutionTag") == nil)
        let rex = try #require(store.object(ofType: PetV1.Pet.self, forPrimaryKey: 1))
        try store.write(label: "birthday") { rex.age = 4 }
        let last = store.committedState().version
        #expect(try store.history(of: rex, keyPath: \.age).map(\.version) == [3, last])
        let objectHistory = try store.history(of: rex)
        #expect(objectHistory.map(\.version) == [3, last], "\(objectHistory)")
        // The diff across it lists the removed type's object as deleted.
        let diff = try store.diff(from: 3, to: last)
        #expect(diff.deleted.map(\.typeName) == ["EvolutionTag"])
        #expect(diff.modified.first { $0.primaryKey == .int(1) }?.changes == [PropertyValueChange(name: "age", oldValue: .int(3), newValue: .int(4))])
    }

    @Test func aDiffAcrossAMigrationShowsWhatItChangedOnItsOwn() throws {
        // A retyped property, converted by the migration without a closure.
        do {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: [PetAgeDouble.Pet.self]))
            let rex = try #require(store.object(ofType: PetAgeDouble.Pet.self, forPrimaryKey: 1))
            let diff = try store.diff(from: 2, to: 3)
            let change = try #require(diff.modified.first { $0.primaryKey == .int(1) })
            // An Int does not fit a Double property: it holds the default until a closure converts it.
            #expect(change.changes == [PropertyValueChange(name: "age", oldValue: .int(3), newValue: .double(0))])
            #expect(rex.age == 0)
            // The object's history lists the migration too, and the property's untyped history both types.
            #expect(try store.history(of: rex).last
                        == ObjectHistoryEntry(version: 3, timestamp: try store.frozen(at: 3).timestamp!, label: "migration 0 → 1",
                                              change: .modified([PropertyValueChange(name: "age", oldValue: .int(3), newValue: .double(0))])))
            #expect(try store.history(of: rex, keyPath: \.age as PartialKeyPath<PetAgeDouble.Pet>).map(\.newValue) == [.int(3), .double(0)])
            // Typed as today's Double, the Int before is a typed error, not a trap.
            #expect { _ = try store.history(of: rex, keyPath: \.age) } throws: { error in
                guard case .schema(.unreadableVersion("Pet", _, let differences)) = error as? StoreError else { return false }
                return differences.first?.contains("PartialKeyPath<Pet>") == true
            }
        }
        // A property added: its default, where nothing was.
        do {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: [PetColor.Pet.self]))
            let diff = try store.diff(from: 2, to: 3)
            #expect(diff.modified.count == 2)
            #expect(diff.modified.first?.changes == [PropertyValueChange(name: "color", oldValue: .null, newValue: .string("brown")),
                                                     PropertyValueChange(name: "legs", oldValue: .null, newValue: .int(4))])
            #expect(try store.diff(from: 3, to: 2).modified.first?.changes.first
                        == PropertyValueChange(name: "color", oldValue: .string("brown"), newValue: .null))
        }
        // A property removed: its value, gone.
        do {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: [PetNoAge.Pet.self]))
            let diff = try store.diff(from: 2, to: 3)
            #expect(diff.modified.map(\.changes) == [[PropertyValueChange(name: "age", oldValue: .int(3), newValue: .null)],
                                                      [PropertyValueChange(name: "age", oldValue: .int(1), newValue: .null)]])
            #expect(diff.inserted.isEmpty && diff.deleted.isEmpty)
        }
    }
}

/// A type that release 1 had before `Pet`, and release 2 deletes.
final class EvolutionTag: Object, @unchecked Sendable {
    @Persisted var label = ""
}
