import Foundation
import Chronicle

// The seeds' models (004_…: Person/Address; 001_…: DoggoDB), as users write them.

final class Person: Object {
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var address: Address?
    @Persisted var friends = List<Person>()
}
extension Person: @unchecked Sendable {}

final class Address: EmbeddedObject {
    @Persisted var city: String = ""
    @Persisted var country = ""
}
extension Address: @unchecked Sendable {}

final class Employee: Object, ObjectKeyIdentifiable {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var personId = ""
    @Persisted var company = "my business"
    @Persisted var businessUnit = BusinessUnitEnum.engineering
    @Persisted var profileImageUrl: URL?
    @Persisted var dogs: List<Dog>
}
extension Employee: @unchecked Sendable {}

enum BusinessUnitEnum: String, PersistableEnum, CaseIterable {
    case customerEngineering = "Customer Engineering"
    case engineering = "Engineering"
    case sales = "Sales"
}

final class Dog: Object, ObjectKeyIdentifiable {
    @Persisted(primaryKey: true) var _id: UUID
    @Persisted var name = ""
    @Persisted var breed = ""
    @Persisted var weight = 0
    @Persisted var favoriteToy = ""
    @Persisted var profileImageUrl: URL?
    @Persisted var dateLastUpdated = Date()
    @Persisted(originProperty: "dogs") var person: LinkingObjects<Employee>
    var firstLetter: String {
        guard let char = name.first else { return "" }
        return String(char)
    }
}
extension Dog: @unchecked Sendable {}

/// Every supported property type, plain and optional.
final class AllTypes: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double: Double = 0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var uuid = UUID()
    @Persisted var url = URL(string: "https://example.com")!
    @Persisted var decimal = Decimal(0)
    @Persisted var objectId = ObjectId()
    @Persisted var unit = BusinessUnitEnum.sales
    @Persisted var optBool: Bool?
    @Persisted var optInt: Int?
    @Persisted var optInt8: Int8?
    @Persisted var optInt16: Int16?
    @Persisted var optInt32: Int32?
    @Persisted var optInt64: Int64?
    @Persisted var optFloat: Float?
    @Persisted var optDouble: Double?
    @Persisted var optString: String?
    @Persisted var optData: Data?
    @Persisted var optDate: Date?
    @Persisted var optUUID: UUID?
    @Persisted var optURL: URL?
    @Persisted var optDecimal: Decimal?
    @Persisted var optObjectId: ObjectId?
    @Persisted var optUnit: BusinessUnitEnum?
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var numbers: List<Int>
}
extension AllTypes: @unchecked Sendable {}

final class Counter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value = 0
}
extension Counter: @unchecked Sendable {}

func scratchStore(_ name: String = #function) throws -> Store {
    try Store(configuration: .inMemory(identifier: name))
}
