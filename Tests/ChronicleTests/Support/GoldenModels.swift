import Foundation
import Chronicle

// The models of the golden fixtures (see GoldenFixtureTests): kept apart
// from the other tests' models, so that no change to those changes what
// the fixtures mean. Never change these: add new models for new fixtures.

final class GoldenOwner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var age = 0
    @Persisted var nickname: String?
    @Persisted var home: GoldenAddress?
    @Persisted var pets: List<GoldenPet>
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}
extension GoldenOwner: @unchecked Sendable {}

final class GoldenPet: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var species = ""
    @Persisted var weight = 0.0
}
extension GoldenPet: @unchecked Sendable {}

final class GoldenAddress: EmbeddedObject {
    @Persisted var city = ""
}
extension GoldenAddress: @unchecked Sendable {}

/// Release 2 of the golden models (format 2: a migration, a declared
/// default): `GoldenPet.weight` renamed `weightKg`, `color` added.
enum GoldenRelease2 {
    final class GoldenOwner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var age = 0
        @Persisted var nickname: String?
        @Persisted var home: GoldenAddress?
        @Persisted var pets: List<GoldenPet>
        @Persisted var tags: MutableSet<String>
        @Persisted var scores: Map<String, Int>
    }
    final class GoldenPet: Object {
        @Persisted(primaryKey: true) var name = ""
        @Persisted var species = ""
        @Persisted var weightKg = 0.0
        @Persisted var color = "brown"
    }
}
extension GoldenRelease2.GoldenOwner: @unchecked Sendable {}
extension GoldenRelease2.GoldenPet: @unchecked Sendable {}
