import Foundation
import Testing
@testable import Chronicle

/// A class that does not match the journal is caught before any value is
/// read: a typed error where the API throws, a precondition that says what
/// to do where it cannot.
@Suite("Schema: no silent misread")
struct SchemaMisreadTests {
    @Test func readingAnIntAsADoubleWithoutObjectTypesStopsWithAMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: .init(fileURL: url))
            // On a build without the check this read 0.0, and the filter matched.
            let pets = store.objects(PetAgeDouble.Pet.self).filter(#Predicate { $0.age > 1 })
            print(pets.count, pets.first?.age ?? -1)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Pet") && message.contains("'age' is Int in the journal but Double in the class"),
                "stderr: \(message)")
        #expect(message.contains("schemaVersion") && message.contains("migration.enumerateObjects(ofType: \"Pet\")")
                && message.contains("new?[\"age\"]"), "stderr: \(message)")
    }

    @Test func readingAnIntAsAStringStops() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: .init(fileURL: url))
            print(store.object(ofType: PetAgeString.Pet.self, forPrimaryKey: 1)?.age ?? "none")
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("'age' is Int in the journal but String in the class"), "stderr: \(message)")
    }

    @Test func aRemovedPropertyStopsTheFirstRead() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: .init(fileURL: url))
            print(store.objects(PetNoAge.Pet.self).count)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the journal has property 'age' (Int), which the class no longer declares"),
                "stderr: \(message)")
    }

    @Test func aChangedLinkedTypeStopsAQueryThroughTheLink() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let url = try PetJournal.versionOne()
            let store = try Store(configuration: .init(fileURL: url))
            // Owner itself matches; the Pet it links to does not, and a
            // query through the link would read its values.
            print(store.objects(PetAgeDouble.Owner.self).filter(#Predicate { $0.pets.contains { $0.age > 1 } }).count)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the class Pet cannot read this store") && message.contains("Double"), "stderr: \(message)")
    }

    @Test func twoClassesWithOneNameStopWithAClearMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try Store(configuration: .inMemory())
            try store.write { store.add(OtherModule.Pet()) }
            print(store.objects(PetV1.Pet.self).count)
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("two model classes are both named Pet"), "stderr: \(message)")
        #expect(!message.contains("_id"), "stderr: \(message)")
    }

    @Test func twoClassesWithOneNameInAWriteAreATypedError() throws {
        let store = try Store(configuration: .inMemory())
        try store.write { store.add(OtherModule.Pet()) }
        #expect {
            try store.write { store.add(PetV1.Pet()) }
        } throws: { error in
            guard case StoreError.schema(.duplicateTypeName("Pet")) = error else { return false }
            return "\(error)".contains("Rename one of them")
        }
    }

    @Test func aWriteWithAChangedClassIsATypedErrorNamingBothTypes() throws {
        let url = try PetJournal.versionOne()
        let store = try Store(configuration: .init(fileURL: url))
        #expect {
            try store.write { store.add(PetAgeDouble.Pet()) }
        } throws: { error in
            guard case StoreError.schema(.mismatch("Pet", let differences)) = error else { return false }
            return differences == ["property 'age' is Int in the journal but Double in the class"]
                && "\(error)".contains("configuration.migration")
        }
    }

    @Test func theMatchingClassReadsAndAnAddedPropertyIsNoMismatch() throws {
        let url = try PetJournal.versionOne()
        do {
            let store = try Store(configuration: .init(fileURL: url))
            #expect(store.objects(PetV1.Pet.self).filter(#Predicate { $0.age > 1 }).map(\.name) == ["Rex"])
        }
        let reopened = try Store(configuration: .init(fileURL: url))
        #expect(reopened.objects(PetColor.Pet.self).count == 2)
    }
}
