import Chronicle
import Foundation

// Models for the tests of ChronicleTesting itself.

final class Contact: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var nickname: String?
    @Persisted var home: Place?
    @Persisted var pets: List<Pet>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}
extension Contact: @unchecked Sendable {}

final class Place: EmbeddedObject {
    @Persisted var city = ""
}
extension Place: @unchecked Sendable {}

final class Pet: Object {
    @Persisted(primaryKey: true) var _id: UUID
    @Persisted var name = ""
}
extension Pet: @unchecked Sendable {}

/// A contact named `name`.
func contact(_ name: String, age: Int = 0) -> Contact {
    let contact = Contact()
    contact.name = name
    contact.age = age
    return contact
}
