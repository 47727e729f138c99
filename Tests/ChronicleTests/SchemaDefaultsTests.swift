import Foundation
import Testing
@testable import Chronicle

/// A property added to a class without a migration reads its declared
/// default (`= "brown"`) on every object that predates it, in queries too.
@Suite("Schema: defaults of added properties")
struct SchemaDefaultsTests {
    @Test func oldObjectsReadTheDeclaredDefaultWhenTheStoreOpensWithTheClass() throws {
        let url = try PetJournal.versionOne()
        do {
            let store = try Store(configuration: .init(fileURL: url, objectTypes: [PetColor.Pet.self]))
            let pets = store.objects(PetColor.Pet.self)
            #expect(pets.map(\.color) == ["brown", "brown"])
            #expect(pets.map(\.legs) == [4, 4])
            #expect(pets.filter(#Predicate { $0.color == "brown" }).count == 2)
            #expect(pets.filter(#Predicate { $0.legs == 4 }).count == 2)
            #expect(pets.filter(#Predicate { $0.color == "" }).isEmpty)
            try store.write { pets.first!.color = "black" }
            #expect(pets.sorted(by: \.color).map(\.color) == ["black", "brown"])
            // The journal records the default with the property, so it can
            // be read without the class.
            let added = store.journalForReading.commits().flatMap(\.events).compactMap { event -> PropertySchema? in
                if case .addProperty(_, let property) = event { property } else { nil }
            }
            #expect(added.map(\.name) == ["color", "legs"])
            #expect(added.map(\.declaredDefault) == [.string("brown"), .int(4)])
            try store.close()
        }
        let reopened = try Store(configuration: .init(fileURL: url))
        #expect(reopened.objects(PetColor.Pet.self).map(\.color) == ["black", "brown"])
        let state = try Journal(contentsOf: url).state(at: reopened.version)
        let table = try #require(state.tableIndex(named: "Pet"))
        let color = try #require(state.schema[table].propertyIndex(named: "color"))
        #expect(state.objects(table: table).map { $0.1.values[color] } == [.string("black"), .string("brown")])
    }

    @Test func theFirstWriteThatUsesTheClassAddsThePropertyWithItsDefault() throws {
        let url = try PetJournal.versionOne()
        let store = try Store(configuration: .init(fileURL: url))
        try store.write {
            let pet = PetColor.Pet()
            pet.id = 3
            pet.color = "white"
            store.add(pet)
        }
        let pets = store.objects(PetColor.Pet.self)
        #expect(pets.map(\.color) == ["brown", "brown", "white"])
        #expect(pets.filter(#Predicate { $0.color == "brown" }).map(\.id) == [1, 2])
    }

    @Test func beforeAnyWriteTheNewPropertyReadsItsDefault() throws {
        let url = try PetJournal.versionOne()
        let store = try Store(configuration: .init(fileURL: url))
        let rex = try #require(store.object(ofType: PetColor.Pet.self, forPrimaryKey: 1))
        #expect(rex.color == "brown" && rex.legs == 4 && rex.name == "Rex")
        #expect(store.objects(PetColor.Pet.self).filter(#Predicate { $0.color == "brown" }).count == 2)
    }

    @Test func aDefaultThatIsTheTypesZeroIsNotRecorded() throws {
        let store = try Store(configuration: .inMemory())
        try store.write { store.add(PetV1.Pet()) }
        let metadata = try ClassMetadata.of(PetColor.Pet.self)
        #expect(metadata.declaredDefaults[metadata.ordinalByName["name"]!] == nil)
        #expect(metadata.declaredDefaults[metadata.ordinalByName["color"]!] == .string("brown"))
    }

    @Test func aDeclaredDefaultRoundTripsThroughTheCodec() throws {
        let property = PropertySchema(name: "color", type: .string, declaredDefault: .string("brown"))
        let commit = Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 0), label: nil, metadata: [:],
                            events: [.addProperty(table: 0, property)])
        #expect(try EventCodec.decodeCommit(EventCodec.encode(commit)) == commit)
    }
}
