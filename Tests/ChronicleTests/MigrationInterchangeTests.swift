import Foundation
import Testing
@testable import Chronicle

/// A migrated journal through JSON Lines: exported and imported into a new
/// journal, every commit (the migration's schema changes included) comes
/// back equal, and the new journal folds to the same state.
@Suite("Schema: migrations through JSON Lines")
struct MigrationInterchangeTests {
    enum Kind: String, CaseIterable, Sendable {
        case retype, rename, renameType, deleteTypeAndRetargetLink
    }

    /// The migration of `kind` run on a fresh version-one pet journal.
    static func migratedJournal(_ kind: Kind) throws -> URL {
        let url = try PetJournal.versionOne("interchange-\(kind.rawValue)")
        let configuration: Store.Configuration
        switch kind {
        case .retype:
            configuration = MigrationTests.configuration(url, version: 1, types: [PetAgeDouble.Pet.self]) { migration, _ in
                migration.enumerateObjects(ofType: "Pet") { old, new in
                    new?["age"] = .double(Double(old?["age", as: Int.self] ?? 0) + 0.5)
                }
            }
        case .rename:
            configuration = MigrationTests.configuration(url, version: 1, types: [PetRenamed.Pet.self]) { migration, _ in
                migration.renameProperty(onType: "Pet", from: "age", to: "years")
            }
        case .renameType:
            configuration = MigrationTests.configuration(url, version: 1, types: [PetAsAnimal.Animal.self]) { migration, _ in
                migration.renameType(from: "Pet", to: "Animal")
            }
        case .deleteTypeAndRetargetLink:
            configuration = MigrationTests.configuration(url, version: 1, types: [PetKept.Pet.self]) { migration, _ in
                let keeper = migration.create("Keeper", values: ["name": .string("keeper")])
                migration.enumerateObjects(ofType: "Pet") { _, new in new?["keeper"] = keeper?.asLink }
                migration.deleteData(forType: "Owner")
            }
        }
        let store = try Store(configuration: configuration)
        try store.close()
        return url
    }

    @Test(arguments: Kind.allCases)
    func anExportedMigrationImportsToTheSameCommitsAndState(_ kind: Kind) throws {
        let url = try Self.migratedJournal(kind)
        let original = try Journal(contentsOf: url)
        let commits = Array(original.commits())
        let migration = try #require(commits.last)
        #expect(migration.events.contains { if case .changeSchema = $0 { true } else { false } },
                "the last commit is the migration, with its schema changes")

        let exported = url.deletingPathExtension().appendingPathExtension("jsonl")
        try original.exportJSONLines(to: exported)
        let copyURL = url.deletingLastPathComponent().appendingPathComponent("copy-\(kind.rawValue).journal")
        try? FileManager.default.removeItem(at: copyURL)
        let copy = try Journal(fileURL: copyURL, durability: .none)
        #expect(try copy.importJSONLines(from: exported) == commits.count)
        let imported = Array(copy.commits())
        #expect(imported == commits)
        let last = UInt64(commits.count)
        #expect(try copy.state(at: last).isContentEqual(try original.state(at: last)))
        #expect(try copy.state(at: last).schemaVersion == 1)
    }
}
