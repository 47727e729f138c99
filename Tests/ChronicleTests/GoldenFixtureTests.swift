import Foundation
import Testing
@testable import Chronicle

// Golden files: journals and checkpoint files written by an earlier format,
// kept in `Tests/Fixtures/Golden` for ever. Every later build must open each
// to the same state. When the format changes, the old files stay and new
// ones are added (in a folder named after the format they were written by).
//
// The models are private to this file so that no change to the other tests'
// models changes what the fixtures mean.

/// Writes the golden files, and says what each must open to.
enum GoldenFixtures {
    /// The folder of the fixtures written by the format of November 2026
    /// (journal format 1 and 2 headers, checkpoint format 3).
    static let formatOne = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/Golden/format-1")

    /// The folder of the fixtures written once schema changes and declared
    /// defaults entered the format (a migration commit, a checkpoint file
    /// with a schema version).
    static let formatTwo = formatOne.deletingLastPathComponent().appendingPathComponent("format-2")

    static let types: [ObjectBase.Type] = [GoldenOwner.self, GoldenPet.self, GoldenAddress.self]

    /// Release 2 at schema version 1: `weight` renamed `weightKg` (in
    /// pounds before, kilograms now), `color` added; cats are black.
    static func releaseTwo(_ url: URL) -> Store.Configuration {
        var configuration = Store.Configuration(fileURL: url, durability: .none,
                                                objectTypes: [GoldenRelease2.GoldenOwner.self], clock: clock())
        configuration.checkpoints.fileThreshold = .max
        configuration.schemaVersion = 1
        configuration.migration = { migration, _ in
            migration.renameProperty(onType: "GoldenPet", from: "weight", to: "weightKg")
            migration.enumerateObjects(ofType: "GoldenPet") { old, new in
                new?["weightKg"] = .double((old?["weight", as: Double.self] ?? 0) * 0.5)
                if old?["species", as: String.self] == "cat" { new?["color"] = .string("black") }
            }
        }
        return configuration
    }

    /// Writes the format-2 fixtures into `folder`: the plain history, then
    /// release 2's migration, a checkpoint file, and one commit beyond it.
    static func writeFormatTwo(into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent("migrated.chronicle")
        for file in [url, url.appendingPathExtension("checkpoint")] { try? FileManager.default.removeItem(at: file) }
        var first = Store.Configuration(fileURL: url, durability: .none, objectTypes: types, clock: clock())
        first.checkpoints.fileThreshold = .max
        do {
            let store = try Store(configuration: first)
            try writeHistory(store)
            try store.close()
        }
        let store = try Store(configuration: releaseTwo(url))
        try store.writeCheckpoint()
        try store.write(label: "new pet") {
            let pet = GoldenRelease2.GoldenPet()
            pet.name = "Pip"
            pet.species = "bird"
            store.add(pet)
        }
        try store.close()
    }

    /// A fixed clock, so the files say the same whenever they are written.
    static func clock() -> @Sendable () -> Date { ReplayFixtures.clock() }

    /// The history every fixture holds: the schema, two owners with pets,
    /// edits of every collection kind, an update and a delete.
    static func writeHistory(_ store: Store) throws {
        try store.write(label: "adopt") {
            let ann = GoldenOwner()
            ann.id = 1
            ann.name = "Ann"
            ann.age = 34
            ann.home = GoldenAddress()
            ann.home?.city = "Oslo"
            let rex = GoldenPet()
            rex.name = "Rex"
            rex.species = "dog"
            rex.weight = 12.5
            ann.pets.append(rex)
            ann.tags.insert("walker")
            ann.scores["agility"] = 7
            store.add(ann)
            let bob = GoldenOwner()
            bob.id = 2
            bob.name = "Bob"
            bob.age = 41
            bob.nickname = "Bobby"
            let tom = GoldenPet()
            tom.name = "Tom"
            tom.species = "cat"
            bob.pets.append(tom)
            store.add(bob)
        }
        try store.write(label: "birthday", metadata: ["by": "fixture"]) {
            store.object(ofType: GoldenOwner.self, forPrimaryKey: 1)!.age = 35
        }
        try store.write(label: "more pets") {
            let ann = store.object(ofType: GoldenOwner.self, forPrimaryKey: 1)!
            let kit = GoldenPet()
            kit.name = "Kit"
            kit.species = "cat"
            ann.pets.insert(kit, at: 0)
            ann.pets.move(from: 0, to: 1)
            ann.tags.insert("early")
            ann.scores["agility"] = 9
            ann.scores["speed"] = 4
        }
        try store.write(label: "goodbye Tom") {
            store.delete(store.object(ofType: GoldenPet.self, forPrimaryKey: "Tom")!)
            store.object(ofType: GoldenOwner.self, forPrimaryKey: 2)!.nickname = nil
        }
    }

    /// Writes every fixture into `folder`.
    static func write(into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["plain.chronicle", "checkpointed.chronicle", "checkpointed.chronicle.checkpoint", "compacted.chronicle"] {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
        var noFile = Store.Configuration(fileURL: folder.appendingPathComponent("plain.chronicle"), durability: .none,
                                         objectTypes: types, clock: clock())
        noFile.checkpoints.fileThreshold = .max
        do {
            let store = try Store(configuration: noFile)
            try writeHistory(store)
            try store.close()
        }
        // A checkpoint file covering the history, and a commit beyond it.
        var checkpointed = noFile
        checkpointed.fileURL = folder.appendingPathComponent("checkpointed.chronicle")
        do {
            let store = try Store(configuration: checkpointed)
            try writeHistory(store)
            try store.writeCheckpoint()
            try store.write(label: "after the checkpoint") {
                store.object(ofType: GoldenPet.self, forPrimaryKey: "Kit")!.weight = 3.25
            }
            try store.close()
        }
        // A compacted journal: a version-2 header and a snapshot commit.
        var compacted = noFile
        compacted.fileURL = folder.appendingPathComponent("compacted.chronicle")
        do {
            let store = try Store(configuration: compacted)
            try writeHistory(store)
            try store.compact(keepingLast: 1)
            try store.write(label: "after compaction") {
                store.object(ofType: GoldenOwner.self, forPrimaryKey: 2)!.name = "Robert"
            }
            try store.close()
        }
    }

    /// A copy of fixture `name` (and its checkpoint file) in a fresh folder:
    /// opening a store may write to the files.
    static func copy(_ name: String, from folder: URL, test: String = #function) throws -> URL {
        let directory = try JournalFixtures.temporaryDirectory(test + name)
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasPrefix(name) {
            try FileManager.default.copyItem(at: folder.appendingPathComponent(file), to: directory.appendingPathComponent(file))
        }
        return directory.appendingPathComponent(name)
    }
}

@Suite("Golden fixtures")
struct GoldenFixtureTests {
    /// Run with `CHRONICLE_WRITE_GOLDEN=format-N` to write one format's
    /// files — once, by the build that introduced that format; the files of
    /// earlier formats must stay as their builds wrote them (format-1 was
    /// written before schema changes existed).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["CHRONICLE_WRITE_GOLDEN"] != nil))
    func writeGoldenFiles() throws {
        switch ProcessInfo.processInfo.environment["CHRONICLE_WRITE_GOLDEN"] {
        case "format-1": try GoldenFixtures.write(into: GoldenFixtures.formatOne)
        case "format-2": try GoldenFixtures.writeFormatTwo(into: GoldenFixtures.formatTwo)
        case let other: Issue.record("CHRONICLE_WRITE_GOLDEN=\(other ?? "") names no format; use format-1 or format-2")
        }
    }

    @Test func aMigratedJournalWithACheckpointOpensToItsState() throws {
        let url = try GoldenFixtures.copy("migrated.chronicle", from: GoldenFixtures.formatTwo)
        let candidate = try #require(Store.checkpointCandidate(for: url, policy: .default))
        #expect((try? candidate.get()) != nil, "the golden checkpoint file is no longer accepted")
        var configuration = GoldenFixtures.releaseTwo(url)
        configuration.migration = { _, _ in Issue.record("the migration ran again") }
        let store = try Store(configuration: configuration)
        #expect(store.version == 7 && store.committedState().schemaVersion == 1)
        let pets = store.objects(GoldenRelease2.GoldenPet.self).sorted(by: \.name)
        #expect(pets.map(\.name) == ["Kit", "Pip", "Rex"])
        #expect(pets.map(\.color) == ["black", "brown", "brown"])
        #expect(pets.map(\.weightKg) == [0, 0, 6.25])
        #expect(store.objects(GoldenRelease2.GoldenPet.self).filter(#Predicate { $0.color == "brown" }).count == 2)
        let journal = try Journal(contentsOf: url)
        #expect(journal.commits().map(\.label) == ["schema", "adopt", "birthday", "more pets", "goodbye Tom",
                                                    "migration 0 → 1", "new pet"])
        // Before the migration, the pets had a weight, and no color.
        let before = try journal.state(at: 5)
        let table = try #require(before.tableIndex(named: "GoldenPet"))
        #expect(before.schema[table].properties.map(\.name) == ["name", "species", "weight"])
        let fold = try Store.fold(store.journalForReading)
        #expect(fold.isContentEqual(store.committedState()))
    }

    /// What every fixture holds after ``GoldenFixtures/writeHistory(_:)``.
    func expectHistory(_ store: Store) throws {
        let ann = try #require(store.object(ofType: GoldenOwner.self, forPrimaryKey: 1))
        #expect(ann.name == "Ann" && ann.age == 35 && ann.nickname == nil)
        #expect(ann.home?.city == "Oslo")
        #expect(ann.pets.map(\.name) == ["Rex", "Kit"])
        #expect(ann.pets.first?.weight == 12.5)
        #expect(Set(ann.tags) == ["walker", "early"])
        #expect(ann.scores["agility"] == 9 && ann.scores["speed"] == 4)
        let bob = try #require(store.object(ofType: GoldenOwner.self, forPrimaryKey: 2))
        #expect(bob.pets.isEmpty && bob.nickname == nil && bob.age == 41)
        #expect(store.objects(GoldenPet.self).map(\.name).sorted() == ["Kit", "Rex"])
        #expect(store.objects(GoldenOwner.self).filter(#Predicate { $0.age == 35 }).map(\.id) == [1])
        #expect(store.object(ofType: GoldenPet.self, forPrimaryKey: "Tom") == nil)
        #expect(store.objects(GoldenAddress.self).count == 1)
    }

    @Test func aPlainJournalOpensToItsState() throws {
        let url = try GoldenFixtures.copy("plain.chronicle", from: GoldenFixtures.formatOne)
        let store = try Store(configuration: .init(fileURL: url, objectTypes: GoldenFixtures.types))
        #expect(store.version == 5)
        try expectHistory(store)
        let labels = Array(store.journalForReading.commits()).map(\.label)
        #expect(labels == ["schema", "adopt", "birthday", "more pets", "goodbye Tom"])
        let earlier = try store.frozen(at: 2)
        #expect(earlier.objects(GoldenOwner.self).map(\.age).sorted() == [34, 41])
        #expect(store.object(ofType: GoldenOwner.self, forPrimaryKey: 2)?.name == "Bob")
        // And without the classes: the journal records its own schema.
        let journal = try Journal(contentsOf: url)
        let state = try journal.state(at: 5)
        #expect(state.schema.map(\.name) == ["GoldenOwner", "GoldenAddress", "GoldenPet"])
    }

    @Test func aCheckpointedJournalOpensFromItsCheckpointFile() throws {
        let url = try GoldenFixtures.copy("checkpointed.chronicle", from: GoldenFixtures.formatOne)
        let candidate = try #require(Store.checkpointCandidate(for: url, policy: .default))
        #expect((try? candidate.get()) != nil, "the golden checkpoint file is no longer accepted")
        let store = try Store(configuration: .init(fileURL: url, objectTypes: GoldenFixtures.types))
        #expect(store.version == 6)
        try expectHistory(store)
        #expect(store.object(ofType: GoldenPet.self, forPrimaryKey: "Kit")?.weight == 3.25)
        let fold = try Store.fold(store.journalForReading)
        #expect(fold.isContentEqual(store.committedState()))
    }

    @Test func aCompactedJournalOpensToItsState() throws {
        let url = try GoldenFixtures.copy("compacted.chronicle", from: GoldenFixtures.formatOne)
        let store = try Store(configuration: .init(fileURL: url, objectTypes: GoldenFixtures.types))
        #expect(store.version == 6)
        #expect(store.journalForReading.baseVersion > 0)
        #expect(store.object(ofType: GoldenOwner.self, forPrimaryKey: 2)?.name == "Robert")
        let ann = try #require(store.object(ofType: GoldenOwner.self, forPrimaryKey: 1))
        #expect(ann.pets.map(\.name) == ["Rex", "Kit"] && ann.home?.city == "Oslo")
    }

    @Test func aJournalOfANewerFormatIsATypedErrorThatSaysSo() throws {
        let url = try GoldenFixtures.copy("plain.chronicle", from: GoldenFixtures.formatOne)
        var bytes = try [UInt8](Data(contentsOf: url))
        bytes[8] = UInt8(JournalFormat.version + 1)
        let crc = CRC32C.checksum(Array(bytes[0..<28]))
        withUnsafeBytes(of: crc.littleEndian) { bytes.replaceSubrange(28..<32, with: $0) }
        try Data(bytes).write(to: url)
        try? FileManager.default.removeItem(at: url.appendingPathExtension("checkpoint"))
        #expect {
            _ = try Store(configuration: .init(fileURL: url))
        } throws: { error in
            guard case .journal(.unsupportedFormatVersion(let found, _)) = error as? StoreError else { return false }
            return found == JournalFormat.version + 1 && "\(error)".contains("newer")
        }
    }
}
