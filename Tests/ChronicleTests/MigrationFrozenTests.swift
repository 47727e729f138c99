import Foundation
import Testing
@testable import Chronicle

/// A version before a migration, read with today's classes: by name where
/// the class still reads it right, a typed error (or a stop) naming the
/// type and property otherwise — and always readable by type and property
/// name, without the classes.
@Suite("Schema: reading versions before a migration")
struct MigrationFrozenTests {
    /// Release 1's journal migrated with `types` (and `migration`), then opened.
    static func migrated(_ types: [ObjectBase.Type],
                         _ migration: (@Sendable (Migration, UInt64) throws -> Void)? = nil) throws -> Store {
        let url = try PetJournal.versionOne()
        return try Store(configuration: MigrationTests.configuration(url, version: 1, types: types, migration: migration))
    }

    @Test func aVersionBeforeAPropertyWasRemovedReadsThroughTodaysClassByName() throws {
        let store = try Self.migrated([PetNoAge.Pet.self])
        let past = try store.frozen(at: 2)
        try past.checkReadable(PetNoAge.Pet.self)
        #expect(past.objects(PetNoAge.Pet.self).map(\.name) == ["Rex", "Kit"])
        #expect(past.object(ofType: PetNoAge.Pet.self, forPrimaryKey: 2)?.owner?.name == "Ann")
        #expect(past.objects(PetNoAge.Pet.self).filter(#Predicate { $0.name == "Kit" }).count == 1)
        // What the class no longer declares is still there, untyped.
        #expect(past.object(ofType: "Pet", forPrimaryKey: .int(1))?["age"] == .int(3))
    }

    @Test func aVersionBeforeAPropertyWasAddedReadsItsDefault() throws {
        let store = try Self.migrated([PetColor.Pet.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { _, new in new?["color"] = .string("black") }
        }
        #expect(store.objects(PetColor.Pet.self).map(\.color) == ["black", "black"])
        let past = try store.frozen(at: 2)
        try past.checkReadable(PetColor.Pet.self)
        #expect(past.objects(PetColor.Pet.self).map(\.color) == ["brown", "brown"], "its declared default: it did not exist yet")
        #expect(past.objects(PetColor.Pet.self).map(\.age) == [3, 1])
    }

    @Test func aVersionBeforeARetypeIsATypedErrorAndReadsUntyped() throws {
        let store = try Self.migrated([PetAgeDouble.Pet.self]) { migration, _ in
            migration.enumerateObjects(ofType: "Pet") { old, new in
                new?["age"] = .double(Double(old?["age", as: Int.self] ?? 0))
            }
        }
        let past = try store.frozen(at: 2)
        #expect { try past.checkReadable(PetAgeDouble.Pet.self) } throws: { error in
            guard case .schema(.unreadableVersion("Pet", 2, let differences)) = error as? StoreError else { return false }
            return differences == ["property 'age' is Int in the journal but Double in the class"]
                && "\(error)".contains("objects(ofType: \"Pet\")")
        }
        // The class that links to it cannot read through it either.
        #expect(throws: StoreError.self) { try past.checkReadable(PetAgeDouble.Owner.self) }
        let pets = try #require(past.objects(ofType: "Pet"))
        #expect(pets.map { $0["age"] } == [.int(3), .int(1)])
        #expect(pets.map(\.primaryKey) == [.int(1), .int(2)])
        #expect(past.objects(ofType: "Dog") == nil)
        #expect(past.object(ofType: "Pet", forPrimaryKey: .int(9)) == nil)
        // Today's version reads through the class.
        try store.frozen(at: 3).checkReadable(PetAgeDouble.Pet.self)
        #expect(try store.frozen(at: 3).objects(PetAgeDouble.Pet.self).map(\.age) == [3, 1])
    }

    @Test func aVersionBeforeARenameIsATypedErrorNotItsDefault() throws {
        let store = try Self.migrated([PetRenamed.Pet.self]) { migration, _ in
            migration.renameProperty(onType: "Pet", from: "age", to: "years")
        }
        // Read by name, `years` would be 0 at version 2: its values are under `age` there.
        #expect { try store.frozen(at: 2).checkReadable(PetRenamed.Pet.self) } throws: { error in
            guard case .schema(.unreadableVersion("Pet", 2, let differences)) = error as? StoreError else { return false }
            return differences == ["the class declares 'years', which version 2 calls 'age' (a migration renamed it since)"]
        }
        #expect(try store.frozen(at: 2).object(ofType: "Pet", forPrimaryKey: .int(1))?["age"] == .int(3))
    }

    @Test func aVersionBeforeATypeRenameIsATypedErrorNotAnEmptyResult() throws {
        let store = try Self.migrated([PetAsAnimal.Animal.self]) { migration, _ in
            migration.renameType(from: "Pet", to: "Animal")
        }
        // By name, `Animal` would find no objects at version 2: they were `Pet`s then.
        #expect { try store.frozen(at: 2).checkReadable(PetAsAnimal.Animal.self) } throws: { error in
            guard case .schema(.unreadableVersion("Animal", 2, let differences)) = error as? StoreError else { return false }
            return differences == ["version 2 calls the type 'Pet' (a migration renamed it since)"]
        }
        #expect(try store.frozen(at: 2).objects(ofType: "Pet")?.map { $0["name"] } == [.string("Rex"), .string("Kit")])
        #expect(try store.frozen(at: 2).objects(ofType: "Animal") == nil)
        // A type a migration added since has no objects then, rightly.
        let kept = try Self.migrated([PetKept.Pet.self]) { migration, _ in
            migration.deleteData(forType: "Owner")
        }
        try kept.frozen(at: 2).checkReadable(PetKept.Keeper.self)
        #expect(try kept.frozen(at: 2).objects(PetKept.Keeper.self).isEmpty)
    }

    @Test func readingAVersionBeforeATypeRenameThroughTheClassStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = try PetJournal.versionOne()
            let configuration = MigrationTests.configuration(url, version: 1, types: [PetAsAnimal.Animal.self]) { migration, _ in
                migration.renameType(from: "Pet", to: "Animal")
            }
            let store = try Store(configuration: configuration)
            print(try store.frozen(at: 2).objects(PetAsAnimal.Animal.self).count)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the class Animal cannot read version 2") && message.contains("calls the type 'Pet'"),
                "stderr: \(message)")
    }

    @Test func readingAVersionBeforeARetypeThroughTheClassStopsAndSaysHowToReadIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: MigrationTests.configuration(url, version: 1, types: [PetAgeDouble.Pet.self]))
            print(try store.frozen(at: 2).objects(PetAgeDouble.Pet.self).map(\.age))
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the class Pet cannot read version 2 of the store")
                && message.contains("'age' is Int in the journal but Double in the class"), "stderr: \(message)")
        #expect(message.contains("try store.frozen(at: 2).objects(ofType: \"Pet\")"), "stderr: \(message)")
    }
}
