import Foundation
import ChronicleTesting
import Testing
@testable import Chronicle

/// Issue 3: the object model, events, the store and write transactions.
@Suite("Object model and store")
struct ObjectModelTests {
    static func fileStore(_ url: URL, types: [ObjectBase.Type]? = nil) throws -> Store {
        try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: types))
    }

    @Test func everyPropertyTypeAndItsOptionalRoundTripsThroughReopen() throws {
        let url = try JournalFixtures.journalURL()
        let sample = AllTypes()
        sample.id = 7
        sample.bool = true
        sample.int = -42
        sample.int8 = -8
        sample.int16 = 1600
        sample.int32 = -320_000
        sample.int64 = .max
        sample.float = 1.5
        sample.double = -0.1
        sample.string = "héllo ✓"
        sample.data = Data([0, 1, 255])
        sample.date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        sample.uuid = UUID()
        sample.url = URL(string: "https://example.com/a?b=c")!
        sample.decimal = Decimal(string: "1234.5678")!
        sample.objectId = ObjectId.generate()
        sample.unit = .customerEngineering
        sample.optBool = false
        sample.optInt = 3
        sample.optInt8 = 8
        sample.optInt16 = 16
        sample.optInt32 = 32
        sample.optInt64 = .min
        sample.optFloat = 2.5
        sample.optDouble = .infinity
        sample.optString = ""
        sample.optData = Data()
        sample.optDate = Date(timeIntervalSince1970: 0)
        sample.optUUID = UUID()
        sample.optURL = URL(string: "file:///tmp/x")!
        sample.optDecimal = Decimal(string: "-0.5")!
        sample.optObjectId = ObjectId.generate()
        sample.optUnit = .sales
        sample.tags.insert("a")
        sample.tags.insert("b")
        sample.scores["x"] = 1
        sample.numbers.append(contentsOf: [3, 1, 2])
        let empty = AllTypes()
        empty.id = 8
        do {
            let store = try Self.fileStore(url)
            try store.write { store.add(sample); store.add(empty) }
            try store.close()
        }
        let store = try Self.fileStore(url)
        let read = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: 7))
        #expect(read.bool == sample.bool && read.int == sample.int && read.int8 == sample.int8)
        #expect(read.int16 == sample.int16 && read.int32 == sample.int32 && read.int64 == sample.int64)
        #expect(read.float == sample.float && read.double == sample.double && read.string == sample.string)
        #expect(read.data == sample.data && read.date == sample.date && read.uuid == sample.uuid)
        #expect(read.url == sample.url && read.decimal == sample.decimal && read.objectId == sample.objectId)
        #expect(read.unit == sample.unit)
        #expect(read.optBool == false && read.optInt == 3 && read.optInt8 == 8 && read.optInt16 == 16)
        #expect(read.optInt32 == 32 && read.optInt64 == .min && read.optFloat == 2.5 && read.optDouble == .infinity)
        #expect(read.optString == "" && read.optData == Data() && read.optDate == Date(timeIntervalSince1970: 0))
        #expect(read.optUUID == sample.optUUID && read.optURL == sample.optURL && read.optDecimal == sample.optDecimal)
        #expect(read.optObjectId == sample.optObjectId && read.optUnit == .sales)
        #expect(Array(read.tags) == ["a", "b"] && read.scores["x"] == 1 && Array(read.numbers) == [3, 1, 2])
        let nils = try #require(store.object(ofType: AllTypes.self, forPrimaryKey: 8))
        #expect(nils.optBool == nil && nils.optInt == nil && nils.optString == nil && nils.optDate == nil)
        #expect(nils.optUUID == nil && nils.optURL == nil && nils.optDecimal == nil && nils.optObjectId == nil && nils.optUnit == nil)
    }

    @Test func upsertWithModifiedAppendsOnlyTheChangedProperties() throws {
        let store = try scratchStore()
        let original = Employee()
        original.firstName = "Ann"
        original.lastName = "Lee"
        try store.write { store.add(original) }
        let replacement = Employee()
        replacement._id = original._id
        replacement.firstName = "Ann"
        replacement.lastName = "Smith"
        try store.write { store.add(replacement, update: .modified) }
        #expect(try store.lastCommitEvents() == [#"set Employee#1.lastName: "Lee" → "Smith""#])
        #expect(store.objects(Employee.self).count == 1)
        #expect(original.lastName == "Smith")

        let again = Employee()
        again._id = original._id
        again.firstName = "Ann"
        again.lastName = "Smith"
        try store.write { store.add(again, update: .all) }
        let all = try #require(Array(store.journalForReading.commits(from: store.version)).last)
        #expect(try all.events.count == ClassMetadata.of(Employee.self).schema.properties.count - 1, "\(all.events)")
    }

    @Test func aThrowingWriteLeavesNoTrace() throws {
        struct Abort: Error {}
        let store = try scratchStore()
        try store.write { store.add(Person()) }
        let version = store.version
        let before = store.committedState()
        #expect(throws: Abort.self) {
            try store.write {
                let p = Person()
                p.firstName = "ghost"
                store.add(p)
                store.objects(Person.self).first!.lastName = "changed"
                throw Abort()
            }
        }
        #expect(store.version == version)
        #expect(store.committedState().isContentEqual(before))
        #expect(store.journalForReading.lastVersion == version)
        #expect(store.objects(Person.self).count == 1)
    }

    @Test func aWriteThatChangesNothingAppendsNothing() throws {
        let store = try scratchStore()
        try store.write {}
        #expect(store.version == 0)
    }

    @Test func labelsAndMetadataAreKeptWithTheCommit() throws {
        let store = try scratchStore()
        try store.write(label: "adopt dog", metadata: ["by": "test"]) { store.add(Dog()) }
        let commit = try #require(Array(store.journalForReading.commits()).last)
        #expect(commit.label == "adopt dog" && commit.metadata == ["by": "test"])
    }

    @Test func randomWritesSurviveReopenObjectByObject() throws {
        let url = try JournalFixtures.journalURL()
        var rng = SplitMix64(seed: 0xC0FFEE)
        var expected: [Int: (value: Int, friends: [Int])] = [:]
        do {
            let store = try Self.fileStore(url)
            for _ in 0..<1_500 {
                try store.write {
                    let id = Int(rng.next() % 300)
                    switch rng.next() % 4 {
                    case 0, 1:
                        if let existing = store.object(ofType: Counter.self, forPrimaryKey: id) {
                            existing.value += 1
                            expected[id]!.value += 1
                        } else {
                            let counter = Counter()
                            counter.id = id
                            counter.value = Int(rng.next() % 100)
                            store.add(counter)
                            expected[id] = (counter.value, [])
                        }
                    case 2:
                        if let existing = store.object(ofType: Counter.self, forPrimaryKey: id) {
                            store.delete(existing)
                            expected[id] = nil
                        }
                    default:
                        let counter = Counter()
                        counter.id = id
                        counter.value = -1
                        store.add(counter, update: .modified)
                        expected[id] = (-1, [])
                    }
                }
            }
            let before = store.committedState()
            try store.close()
            let reopened = try Self.fileStore(url)
            #expect(reopened.committedState().isContentEqual(before))
            reopened.committedState()._checkInvariants()
        }
        let store = try Self.fileStore(url)
        #expect(store.objects(Counter.self).count == expected.count)
        for counter in store.objects(Counter.self) {
            #expect(expected[counter.id]?.value == counter.value, "counter \(counter.id)")
        }
    }

    @Test func embeddedObjectsAreDeletedWithTheirParentAndLinksBecomeNil() throws {
        let store = try scratchStore()
        let ann = Person(), bob = Person()
        ann.firstName = "Ann"
        ann.address = Address()
        ann.address?.city = "Oslo"
        bob.friends.append(ann)
        let dog = Dog()
        let owner = Employee()
        owner.dogs.append(dog)
        try store.write { store.add(bob); store.add(owner) }
        let addressTable = try #require(store.committedState().tableIndex(named: "Address"))
        #expect(store.committedState().count(table: addressTable) == 1)
        try store.write { store.delete(ann) }
        #expect(store.committedState().count(table: addressTable) == 0)
        #expect(bob.friends.isEmpty)
        #expect(ann.isInvalidated && !bob.isInvalidated)

        // Replacing an embedded object deletes the old one.
        try store.write {
            bob.address = Address()
            bob.address = Address()
        }
        #expect(store.committedState().count(table: addressTable) == 1)

        try store.write { store.delete(dog) }
        #expect(owner.dogs.isEmpty)
    }

    @Test func eightTasksOfAThousandAsyncWritesEachLoseNoIncrement() async throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<1_000 {
                        try? await store.asyncWrite { counter.value += 1 }
                    }
                }
            }
        }
        #expect(counter.value == 8_000)
        #expect(store.version == 8_001)
    }

    @Test func readsInsideAWriteSeeItsOwnChangesAndOthersSeeTheCommittedState() async throws {
        let store = try scratchStore()
        let counter = Counter()
        try store.write { store.add(counter) }
        try store.write {
            counter.value = 5
            #expect(counter.value == 5)
            // Another thread reads the last committed state; it is not blocked.
            // (A Thread, not DispatchQueue.sync, which may run on this thread.)
            let seenElsewhere = Locked(-1)
            let done = DispatchSemaphore(value: 0)
            Thread {
                seenElsewhere.withLock { $0 = counter.value }
                done.signal()
            }.start()
            done.wait()
            #expect(seenElsewhere.withLock { $0 } == 0)
        }
        #expect(counter.value == 5)
    }

    @Test func createMakesAManagedObjectFromValues() throws {
        let store = try scratchStore()
        let made = try store.write { store.create(Counter.self, value: ["id": 3, "value": 9]) }
        #expect(made.isManaged && made.value == 9)
        #expect(store.object(ofType: Counter.self, forPrimaryKey: 3)?.value == 9)
    }

    @Test func deleteAllRemovesEveryObjectButKeepsTheSchema() throws {
        let store = try scratchStore()
        try store.write {
            store.add(Counter())
            let p = Person()
            p.address = Address()
            store.add(p)
        }
        try store.write { store.deleteAll() }
        #expect(store.objects(Counter.self).isEmpty && store.objects(Person.self).isEmpty)
        #expect(store.committedState().schema.count == 3)
    }

    @Test func uuidPrimaryKeysAreRandomVersion4AndDistinct() throws {
        let store = try Store(configuration: .inMemory(identifier: #function))
        let dogs = (0..<2_000).map { _ in Dog() }
        try store.write { for dog in dogs { store.add(dog) } }
        var seen = Set<UUID>()
        for dog in store.objects(Dog.self) {
            let text = Array(dog._id.uuidString)
            #expect(text[14] == "4", "version nibble of \(dog._id)")
            #expect("89AB".contains(text[19]), "variant of \(dog._id)")
            seen.insert(dog._id)
        }
        #expect(seen.count == dogs.count)
        // Every bit outside the version and variant varies across 2,000 ids.
        let bytes = seen.map { id in withUnsafeBytes(of: id.uuid) { Array($0) } }
        let fixed: [UInt8] = [0, 0, 0, 0, 0, 0, 0xF0, 0, 0xC0, 0, 0, 0, 0, 0, 0, 0]
        for index in 0..<16 {
            let ones = bytes.reduce(UInt8(0)) { $0 | $1[index] }
            let zeros = bytes.reduce(UInt8(0)) { $0 | ~$1[index] }
            #expect(ones & zeros | fixed[index] == 0xFF, "byte \(index) has bits that never change")
        }
    }

    @Test func duplicatePrimaryKeysRejectTheWrite() throws {
        let store = try scratchStore()
        let a = Counter(), b = Counter()
        try store.write { store.add(a) }
        #expect(throws: StoreError.self) { try store.write { store.add(b) } }
        #expect(store.objects(Counter.self).count == 1)
    }
}

// MARK: - Schema errors

final class TwoKeys: Object {
    @Persisted(primaryKey: true) var a = 0
    @Persisted(primaryKey: true) var b = ""
}
extension TwoKeys: @unchecked Sendable {}

final class KeyedEmbedded: EmbeddedObject {
    @Persisted(primaryKey: true) var id = 0
}
extension KeyedEmbedded: @unchecked Sendable {}

final class BadKeyType: Object {
    @Persisted(primaryKey: true) var when = Date()
}
extension BadKeyType: @unchecked Sendable {}

final class BadIndex: Object {
    @Persisted(indexed: true) var ratio = 0.5
}
extension BadIndex: @unchecked Sendable {}

// Same name as the journal's "Counter" but with a changed property type.
enum Renamed {
    final class Counter: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var value = ""
    }
}
extension Renamed.Counter: @unchecked Sendable {}

@Suite("Schema discovery and migration")
struct SchemaTests {
    @Test func unsupportedModelsNameTheClassAndProperty() {
        #expect(throws: SchemaError.multiplePrimaryKeys(type: "TwoKeys", properties: ["a", "b"])) { try ClassMetadata.of(TwoKeys.self) }
        #expect(throws: SchemaError.embeddedPrimaryKey(type: "KeyedEmbedded", property: "id")) { try ClassMetadata.of(KeyedEmbedded.self) }
        #expect(throws: SchemaError.self) { try ClassMetadata.of(BadKeyType.self) }
        #expect(throws: SchemaError.self) { try ClassMetadata.of(BadIndex.self) }
        #expect(throws: StoreError.self) { try Store(configuration: .inMemory(objectTypes: [TwoKeys.self])) }
        do {
            _ = try ClassMetadata.of(BadKeyType.self)
            Issue.record("expected an unsupported primary key")
        } catch {
            guard case .unsupportedProperty(let type, let property, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(type == "BadKeyType" && property == "when" && reason.contains("Int, String, UUID or ObjectId"))
        }
    }

    @Test func aChangedPropertyTypeIsAMismatchThatNamesIt() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let store = try ObjectModelTests.fileStore(url, types: [Counter.self])
            try store.write { store.add(Counter()) }
            try store.close()
        }
        do {
            _ = try ObjectModelTests.fileStore(url, types: [Renamed.Counter.self])
            Issue.record("expected a schema mismatch")
        } catch let error as StoreError {
            guard case .schema(.mismatch(let type, let differences)) = error else {
                Issue.record("expected a mismatch, got \(error)")
                return
            }
            #expect(type == "Counter")
            #expect(differences == ["property 'value' is Int in the journal but String in the class"])
            #expect("\(error)".contains("migration"))
        }
    }

    @Test func addedPropertiesAndTypesMigrateAutomatically() throws {
        let store = try scratchStore()
        try store.write(label: "old app") {
            store.add(Counter())
        }
        // A second class registering later adds its table as schema events.
        try store.write { store.add(Dog()) }
        let commits = Array(store.journalForReading.commits())
        #expect(commits[1].events.contains { if case .defineType(let schema) = $0 { schema.name == "Dog" } else { false } })
        #expect(store.objects(Dog.self).count == 1)
    }

    @Test func aRemovedPropertyIsAMismatch() throws {
        var declared = try ClassMetadata.of(Counter.self).schema
        declared.properties.removeLast()
        let diff = SchemaDiff(recorded: try ClassMetadata.of(Counter.self).schema, declared: declared)
        #expect(diff.mismatches == ["the journal has property 'value' (Int), which the class no longer declares"])
        #expect(diff.added.isEmpty)
        let grown = SchemaDiff(recorded: declared, declared: try ClassMetadata.of(Counter.self).schema)
        #expect(grown.mismatches.isEmpty && grown.added.map(\.name) == ["value"])
    }
}
