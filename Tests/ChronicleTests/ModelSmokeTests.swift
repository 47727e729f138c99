import Foundation
import Testing
@testable import Chronicle

@Suite("Model basics")
struct ModelSmokeTests {
    @Test func unmanagedObjectsBehaveAsPlainObjects() {
        let person = Person()
        person.firstName = "Jason"
        #expect(person.firstName == "Jason")
        #expect(!person.isManaged)
        person.friends.append(Person())
        #expect(person.friends.count == 1)
    }

    @Test func addMakesTheInstanceManagedAndReadsSeeTheState() throws {
        let store = try scratchStore()
        let person = Person()
        person.firstName = "Jason"
        person.address = Address()
        person.address?.city = "Oslo"
        try store.write { store.add(person) }
        #expect(person.isManaged)
        #expect(person.firstName == "Jason")
        #expect(person.address?.city == "Oslo")
        try store.write { person.firstName = "David" }
        #expect(store.objects(Person.self).first?.firstName == "David")
        #expect(store.version == 2)
    }

    @Test func schemaIsDiscoveredFromTheClass() throws {
        let metadata = try ClassMetadata.of(Employee.self)
        #expect(metadata.schema.properties.map(\.name) == ["_id", "firstName", "lastName", "personId", "company", "businessUnit", "profileImageUrl", "dogs"])
        #expect(metadata.schema.properties[0].isPrimaryKey)
        #expect(metadata.schema.properties[7].collection == .list)
        #expect(metadata.schema.properties[7].objectType == "Dog")
        let dog = try ClassMetadata.of(Dog.self)
        #expect(dog.schema.properties.map(\.name).contains("person") == false)
    }

    @Test func keyPathsMapToPersistedNames() throws {
        let city = try KeyPathMapping.record(\Person.address?.city)
        #expect(city.path == ["address", "city"])
        #expect(city.dependencies == [["address"], ["address", "city"]])
        #expect(city.isDirect)
        let initial = try KeyPathMapping.record(\Person.lastName.localizedCapitalized.first)
        #expect(initial.path == ["lastName"])
        #expect(!initial.isDirect)
        // A computed property is a transform of what it reads.
        let letter = try KeyPathMapping.record(\Dog.firstLetter)
        #expect(letter.path == ["name"] && !letter.isDirect)
        // One that reads no persisted property cannot be mapped at all.
        #expect(throws: UnpersistedKeyPathError.self) { try KeyPathMapping.record(\Counter.hashValue) }
    }

    @Test func primaryKeyLookup() throws {
        let store = try scratchStore()
        let dog = Dog()
        dog.name = "Rex"
        let id = dog._id
        try store.write { store.add(dog) }
        #expect(store.object(ofType: Dog.self, forPrimaryKey: id)?.name == "Rex")
        #expect(store.object(ofType: Dog.self, forPrimaryKey: UUID()) == nil)
    }
}

@Suite("Adding object graphs")
struct ObjectGraphTests {
    @Test func cyclesAmongNewObjectsAreAdded() throws {
        let store = try scratchStore()
        let a = Person(), b = Person()
        a.firstName = "A"
        b.firstName = "B"
        a.friends.append(b)
        b.friends.append(a)
        try store.write { store.add(a) }
        #expect(store.objects(Person.self).count == 2)
        #expect(a.friends.first?.firstName == "B")
        #expect(b.friends.first?.firstName == "A")
        #expect(a.friends.first?.friends.first == a)
    }
}
