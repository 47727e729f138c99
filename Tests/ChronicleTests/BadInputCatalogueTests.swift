#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import Chronicle

// Models for the catalogue.

final class Gizmo: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    /// Reads no persisted property: not queryable, not observable.
    var constant: Int { 42 }
}
extension Gizmo: @unchecked Sendable {}

final class CatalogueTwoKeys: Object {
    @Persisted(primaryKey: true) var a = 0
    @Persisted(primaryKey: true) var b = 0
}

final class KeyedPart: EmbeddedObject {
    @Persisted(primaryKey: true) var id = 0
}
final class HasKeyedPart: Object {
    @Persisted var part: KeyedPart?
}

/// The same class in two versions of an app: `size` changed type.
enum AppV1 {
    final class Gadget: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var size = 0
    }
}
enum AppV2 {
    final class Gadget: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var size = ""
    }
}

extension CatalogueTwoKeys: @unchecked Sendable {}
extension KeyedPart: @unchecked Sendable {}
extension HasKeyedPart: @unchecked Sendable {}
extension AppV1.Gadget: @unchecked Sendable {}
extension AppV2.Gadget: @unchecked Sendable {}

/// An in-memory store with Gizmo 1 ("one") in it, for the catalogue's exit tests.
func catalogueStore() -> Store {
    let store = try! Store(configuration: .inMemory(identifier: "catalogue"))
    try! store.write { store.create(Gizmo.self, value: ["id": 1, "name": "one"]) }
    return store
}

func stderrText(_ result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}

/// Every public entry point fed its bad inputs: each gets its documented,
/// typed error; where Swift only allows a precondition (a property setter,
/// a non-throwing accessor), an exit test checks that it stops the process
/// with a message that says what to do. Each entry names the rule it checks.
@Suite("Bad input across the API")
struct BadInputCatalogueTests {
    // MARK: Writes outside a transaction (precondition)

    @Test func settingAManagedPropertyOutsideAWriteStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = catalogueStore()
            store.object(ofType: Gizmo.self, forPrimaryKey: 1)!.name = "changed"
        }
        #expect(stderrText(result).contains("inside store.write"))
        #expect(stderrText(result).contains("Chronicle: cannot set 'name' of a managed Gizmo outside a write transaction"))
    }

    @Test func addingOutsideAWriteStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            catalogueStore().add(Gizmo())
        }
        #expect(stderrText(result).contains("Chronicle: store.add must be called inside store.write"))
    }

    // MARK: Key paths that are not persisted

    @Test func aNonPersistedKeyPathInAFilterThrowsUnknownKeyPath() throws {
        let store = catalogueStore()
        #expect(throws: QueryError.self) {
            _ = try store.objects(Gizmo.self).filtered(#Predicate<Gizmo> { $0.constant == 42 })
        }
        do {
            _ = try store.objects(Gizmo.self).filtered(#Predicate<Gizmo> { $0.constant == 42 })
        } catch let error as QueryError {
            guard case .unknownKeyPath = error else { Issue.record("got \(error)"); return }
        }
    }

    @Test func aNonPersistedKeyPathInTheNonThrowingFilterStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = catalogueStore().objects(Gizmo.self).filter(#Predicate<Gizmo> { $0.constant == 42 })
        }
        #expect(stderrText(result).contains("Chronicle: cannot filter Gizmo"))
        #expect(stderrText(result).contains("not a persisted property"))
    }

    @Test func aNonPersistedKeyPathInASortStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = catalogueStore().objects(Gizmo.self).sorted(by: \.constant)
        }
        #expect(stderrText(result).contains("Chronicle: cannot sort Gizmo"))
    }

    @Test func anUnknownStringKeyPathInObservationThrows() throws {
        let store = catalogueStore()
        let gizmo = try #require(store.object(ofType: Gizmo.self, forPrimaryKey: 1))
        #expect(throws: ObservationError.unknownKeyPath("constant", type: "Gizmo")) {
            _ = try gizmo.changes(keyPaths: ["constant"])
        }
        #expect(throws: ObservationError.self) {
            _ = try store.objects(Gizmo.self).changes(keyPaths: ["nope"])
        }
        // Nothing was left registered by the failed calls.
        #expect(store.observers.count == 0)
    }

    @Test func aNonPersistedTypedKeyPathInObservationStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = catalogueStore()
            _ = store.object(ofType: Gizmo.self, forPrimaryKey: 1)!.changes(keyPaths: [\.constant])
        }
        #expect(stderrText(result).contains("Chronicle: cannot observe"))
    }

    // MARK: Primary keys

    @Test func aPrimaryKeyOfTheWrongTypeStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = catalogueStore().object(ofType: Gizmo.self, forPrimaryKey: "1")
        }
        #expect(stderrText(result).contains("Chronicle: the primary key of Gizmo is int, not String"))
    }

    @Test func aDuplicatePrimaryKeyIsRejectedAndNothingIsCommitted() throws {
        let store = catalogueStore()
        let version = store.version
        #expect {
            try store.write { store.create(Gizmo.self, value: ["id": 1, "name": "again"]) }
        } throws: { error in
            guard case StoreError.rejected(let fold) = error, case .duplicatePrimaryKey = fold.reason else { return false }
            return true
        }
        #expect(store.version == version)
        #expect(store.objects(Gizmo.self).map(\.name) == ["one"])
    }

    // MARK: Objects in the wrong place

    @Test func addingAnObjectFromAnotherStoreStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let first = catalogueStore(), second = catalogueStore()
            let gizmo = first.object(ofType: Gizmo.self, forPrimaryKey: 1)!
            try? second.write { second.add(gizmo) }
        }
        #expect(stderrText(result).contains("Chronicle: this Gizmo belongs to another store"))
    }

    @Test func deletingTwiceIsRejected() throws {
        let store = catalogueStore()
        let gizmo = try #require(store.object(ofType: Gizmo.self, forPrimaryKey: 1))
        // Twice in one write: the whole write is rolled back.
        #expect {
            try store.write {
                store.delete(gizmo)
                store.delete(gizmo)
            }
        } throws: { error in
            guard case StoreError.rejected(let fold) = error, case .noSuchObject = fold.reason else { return false }
            return true
        }
        #expect(!gizmo.isInvalidated)
        // In two writes: the second is rejected.
        try store.write { store.delete(gizmo) }
        #expect(gizmo.isInvalidated)
        #expect {
            try store.write { store.delete(gizmo) }
        } throws: { error in
            guard case StoreError.rejected(let fold) = error, case .noSuchObject = fold.reason else { return false }
            return true
        }
    }

    @Test func addingAFrozenObjectStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = catalogueStore()
            let frozen = store.objects(Gizmo.self).freeze().first!
            try? store.write { store.add(frozen) }
        }
        #expect(stderrText(result).contains("Chronicle: a frozen Gizmo cannot be added; thaw() it first"))
    }

    @Test func deletingAFrozenObjectStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = catalogueStore()
            let frozen = store.objects(Gizmo.self).freeze().first!
            try? store.write { store.delete(frozen) }
        }
        #expect(stderrText(result).contains("Chronicle: a frozen Gizmo cannot be deleted"))
    }

    @Test func settingAFrozenObjectInAWriteStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = catalogueStore()
            let frozen = store.objects(Gizmo.self).freeze().first!
            try? store.write { frozen.name = "x" }
        }
        #expect(stderrText(result).contains("Chronicle: cannot set 'name' of a frozen Gizmo"))
    }

    @Test func readingADeletedObjectStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = catalogueStore()
            let gizmo = store.object(ofType: Gizmo.self, forPrimaryKey: 1)!
            try! store.write { store.delete(gizmo) }
            _ = gizmo.name
        }
        #expect(stderrText(result).contains("Chronicle: reading 'name' of a Gizmo that was deleted"))
        #expect(stderrText(result).contains("isInvalidated"))
    }

    // MARK: Opening

    @Test func aForeignFileIsNotAJournalAndIsLeftAlone() throws {
        let url = try JournalFixtures.journalURL()
        let bytes = Array("just some text, not a journal\n".utf8)
        try JournalFixtures.write(bytes, to: url)
        #expect {
            _ = try Store(configuration: .init(fileURL: url))
        } throws: { error in
            guard case StoreError.journal(.notAJournal) = error else { return false }
            return true
        }
        #expect(try JournalFixtures.bytes(url) == bytes)
    }

    @Test func aDamagedJournalIsReportedAndLeftAlone() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let store = try Store(configuration: .init(fileURL: url))
            for id in 1...3 { try store.write { store.create(Gizmo.self, value: ["id": id]) } }
        }
        var bytes = try JournalFixtures.bytes(url)
        bytes[JournalFormat.headerSize + 12] ^= 0xFF  // inside the first record: damage, valid records follow
        try JournalFixtures.write(bytes, to: url)
        #expect {
            _ = try Store(configuration: .init(fileURL: url))
        } throws: { error in
            guard case StoreError.journal(.damaged(_, 0, _)) = error else { return false }
            return true
        }
        #expect(try JournalFixtures.bytes(url) == bytes)
    }

    @Test func aLockedJournalIsReported() throws {
        let url = try JournalFixtures.journalURL()
        // An exclusive writer (a journal opened alone, or a Chronicle from
        // before sharing) keeps stores out; stores share with each other.
        let first = try Journal(fileURL: url)
        #expect {
            _ = try Store(configuration: .init(fileURL: url))
        } throws: { error in
            guard case StoreError.journal(.locked) = error else { return false }
            return true
        }
        withExtendedLifetime(first) {}
    }

    @Test func aSchemaMismatchAtOpenIsReported() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let store = try Store(configuration: .init(fileURL: url, objectTypes: [AppV1.Gadget.self]))
            try store.write { store.create(AppV1.Gadget.self, value: ["id": 1, "size": 3]) }
        }
        let before = try JournalFixtures.bytes(url)
        #expect {
            _ = try Store(configuration: .init(fileURL: url, objectTypes: [AppV2.Gadget.self]))
        } throws: { error in
            guard case StoreError.schema(.mismatch("Gadget", let differences)) = error else { return false }
            return differences.contains { $0.contains("'size'") }
        }
        #expect(try JournalFixtures.bytes(url) == before, "a failed open writes nothing")
        // Without objectTypes the mismatch surfaces at the first write that uses the class.
        let store = try Store(configuration: .init(fileURL: url))
        #expect {
            try store.write { store.create(AppV2.Gadget.self, value: ["id": 2, "size": "big"]) }
        } throws: { error in
            guard case StoreError.schema(.mismatch) = error else { return false }
            return true
        }
    }

    // MARK: Time travel and checkpoints

    /// A file store with Gizmos 1...3, one commit each, closed again.
    static func gizmoJournal() throws -> URL {
        let url = try JournalFixtures.journalURL()
        let store = try Store(configuration: .init(fileURL: url, durability: .none))
        for id in 1...3 { try store.write(label: "gizmo \(id)") { store.create(Gizmo.self, value: ["id": id, "name": "g\(id)"]) } }
        return url
    }

    @Test func frozenAtAVersionBeyondTheJournalThrowsVersionOutOfRange() throws {
        let url = try Self.gizmoJournal()
        let store = try Store(configuration: .init(fileURL: url, durability: .none))
        for version: UInt64 in [4, 1_000, .max] {
            #expect {
                _ = try store.frozen(at: version)
            } throws: { error in
                guard case StoreError.versionOutOfRange(version, 0...3) = error else { return false }
                return true
            }
        }
        // The failed request changed nothing: the store reads, travels and writes as before.
        #expect(try store.frozen(at: 3).objects(Gizmo.self).count == 3)
        try store.write { store.create(Gizmo.self, value: ["id": 4]) }
        #expect(try store.frozen(at: 4).object(ofType: Gizmo.self, forPrimaryKey: 4) != nil)
    }

    /// Documented: a date before the first commit is version 0, the empty
    /// store (no timestamp, no label); a date after the last is the last version.
    @Test func frozenAtADateBeforeTheFirstCommitIsVersionZero() throws {
        let store = try Store(configuration: .init(fileURL: try Self.gizmoJournal(), durability: .none))
        let first = try #require(try store.frozen(at: 1).timestamp)
        for date in [first - 0.001, .distantPast] {
            let past = try store.frozen(at: date)
            #expect(past.version == 0 && past.timestamp == nil && past.label == nil)
            #expect(past.objects(Gizmo.self).isEmpty)
        }
        #expect(try store.frozen(at: first).version == 1)
        #expect(try store.frozen(at: .distantFuture).version == 3)
    }

    /// A damaged checkpoint file (see also ReplayCheckpointTests, which flips a
    /// sample of bytes of a larger one) is ignored: the store opens with the
    /// same state as without one, and writes a good file again.
    @Test func aDamagedCheckpointIsIgnoredAndGivesTheSameState() throws {
        let url = try Self.gizmoJournal()
        let file = CheckpointFile.url(for: url)
        let expected = try Store.fold(Journal(contentsOf: url))
        let original = try Self.writtenCheckpoint(url)
        var damaged: [(String, [UInt8])] = [("empty", []), ("garbage", Array("not a checkpoint".utf8)),
                                            ("truncated", Array(original.prefix(original.count / 2))),
                                            ("without its checksum", Array(original.dropLast(4)))]
        for offset in original.indices {
            var bytes = original
            bytes[offset] ^= 0x01
            damaged.append(("byte \(offset) flipped", bytes))
        }
        for (what, bytes) in damaged {
            try JournalFixtures.write(bytes, to: file)
            let store = try Self.openWritingCheckpoints(url)
            #expect(store.checkpointFile.waitUntilIdle(), "\(what)")
            #expect(store.checkpoints.fileStatus == .written(version: 3), "\(what)")
            #expect(store.committedState().isContentEqual(expected), "\(what)")
            #expect(try JournalFixtures.bytes(file) == original, "\(what): rewritten")
        }
    }

    /// Hostile rather than damaged: bytes changed and the checksum recomputed,
    /// so they reach the decoder and the state checks. Opening never crashes;
    /// a file that is rejected gives the journal's state and a store that
    /// takes writes. A file that still decodes is used (the checksum guards
    /// against damage; whoever can rewrite the cache can rewrite the journal
    /// too): its state must pass the fold's checks, and a write that does not
    /// fit it (a property renamed, say) is a typed error, not a crash.
    @Test func aCheckpointWithAValidChecksumButChangedBytesNeverBreaksTheStore() throws {
        let url = try Self.gizmoJournal()
        let expected = try Store.fold(Journal(contentsOf: url))
        let original = try Self.writtenCheckpoint(url)
        let journalBytes = try JournalFixtures.bytes(url)
        let directory = try JournalFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var rejected = 0
        for offset in original.indices {
            for mask: UInt8 in [0x01, 0xFF] {
                var bytes = original
                bytes[offset] ^= mask
                bytes = CheckpointLayout.resealed(bytes)
                // A copy of the journal (same file id) per case, as the store writes to it below.
                let copy = directory.appendingPathComponent("\(offset)-\(mask).journal")
                try JournalFixtures.write(journalBytes, to: copy)
                try JournalFixtures.write(bytes, to: CheckpointFile.url(for: copy))
                let store = try Self.openWritingCheckpoints(copy)
                #expect(store.committedState()._invariantViolations().isEmpty, "byte \(offset) ^ \(mask)")
                if store.checkpoints.fileStatus != .loaded(version: 3) {
                    rejected += 1
                    #expect(store.committedState().isContentEqual(expected), "byte \(offset) ^ \(mask)")
                }
                do {
                    try store.write { store.create(Gizmo.self, value: ["id": 100]) }
                    #expect(store.committedState()._invariantViolations().isEmpty, "byte \(offset) ^ \(mask), after a write")
                } catch {
                    #expect(store.checkpoints.fileStatus == .loaded(version: 3), "byte \(offset) ^ \(mask): \(error)")
                }
            }
        }
        #expect(rejected > 0)
    }

    static func openWritingCheckpoints(_ url: URL) throws -> Store {
        var configuration = Store.Configuration(fileURL: url, durability: .none)
        configuration.checkpoints = .init(usesFile: true, fileThreshold: 0)
        return try Store(configuration: configuration)
    }

    /// The checkpoint file a store opening `url` writes (in the background,
    /// once open).
    static func writtenCheckpoint(_ url: URL) throws -> [UInt8] {
        let store = try openWritingCheckpoints(url)
        #expect(store.checkpointFile.waitUntilIdle())
        #expect(store.checkpoints.fileStatus == .written(version: store.version))
        return try JournalFixtures.bytes(CheckpointFile.url(for: url))
    }

    // MARK: Unsupported models

    @Test func twoPrimaryKeysAreASchemaError() throws {
        #expect {
            _ = try Store(configuration: .inMemory(objectTypes: [CatalogueTwoKeys.self]))
        } throws: { error in
            guard case StoreError.schema(.multiplePrimaryKeys("CatalogueTwoKeys", let keys)) = error else { return false }
            return keys == ["a", "b"]
        }
        let store = try scratchStore()
        #expect {
            try store.write { store.add(CatalogueTwoKeys()) }
        } throws: { error in
            guard case StoreError.schema(.multiplePrimaryKeys) = error else { return false }
            return true
        }
        #expect(store.version == 0)
    }

    @Test func anEmbeddedObjectWithAPrimaryKeyIsASchemaError() throws {
        #expect {
            _ = try Store(configuration: .inMemory(objectTypes: [HasKeyedPart.self]))
        } throws: { error in
            guard case StoreError.schema(.embeddedPrimaryKey("KeyedPart", "id")) = error else { return false }
            return true
        }
    }
}
