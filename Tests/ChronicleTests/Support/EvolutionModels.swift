import Foundation
import Chronicle

// One model, `Pet`, as successive releases of an app declare it: each enum
// is a release. They share the table name "Pet" (a nested class is named
// without its enclosing type), so a test opens a journal written by one
// release with the class of another, as an upgraded app does.

enum PetV1 {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var age = 0
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Pet>
    }
}

/// `age` became a `Double`.
enum PetAgeDouble {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0.0
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
    }
    /// Unchanged, but links to the changed `Pet`.
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Pet>
    }
}

/// `age` became a `String`.
enum PetAgeString {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = ""
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Pet>
    }
}

/// `age` is gone.
enum PetNoAge {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Pet>
    }
}

/// `color` was added, with a default.
enum PetColor {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var age = 0
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
        @Persisted var color = "brown"
        @Persisted var legs = 4
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Pet>
    }
}

/// An unrelated class that happens to be named `Pet` too.
enum OtherModule {
    final class Pet: Object {
        @Persisted var species = ""
    }
}

extension PetV1.Pet: @unchecked Sendable {}
extension PetV1.Owner: @unchecked Sendable {}
extension PetAgeDouble.Pet: @unchecked Sendable {}
extension PetAgeDouble.Owner: @unchecked Sendable {}
extension PetAgeString.Pet: @unchecked Sendable {}
extension PetAgeString.Owner: @unchecked Sendable {}
extension PetNoAge.Pet: @unchecked Sendable {}
extension PetNoAge.Owner: @unchecked Sendable {}
extension PetColor.Pet: @unchecked Sendable {}
extension PetColor.Owner: @unchecked Sendable {}
extension OtherModule.Pet: @unchecked Sendable {}

/// Writes a journal the way release 1 of the app did: two pets, one owner.
enum PetJournal {
    static func writeVersionOne(at url: URL) throws {
        let store = try Store(configuration: .init(fileURL: url, durability: .none, objectTypes: [PetV1.Pet.self]))
        try store.write(label: "first pets") {
            let owner = PetV1.Owner()
            owner.id = 1
            owner.name = "Ann"
            for (id, name, age) in [(1, "Rex", 3), (2, "Kit", 1)] {
                let pet = PetV1.Pet()
                pet.id = id
                pet.name = name
                pet.age = age
                pet.owner = owner
                owner.pets.append(pet)
            }
            store.add(owner)
        }
        try store.close()
    }

    /// A fresh journal file written by release 1.
    static func versionOne(_ name: String = #function) throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("chronicle-evolution-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent("pets.chronicle")
        try writeVersionOne(at: url)
        return url
    }
}

// Later releases, each a change a migration makes.

/// `age` renamed to `years`.
enum PetRenamed {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var years = 0
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Pet>
    }
}

/// `nickname` became required; `age` lost its index; `id` is no longer the
/// primary key and `name` is.
enum PetReshaped {
    final class Pet: Object {
        @Persisted var id = 0
        @Persisted(primaryKey: true) var name = ""
        @Persisted var age = 0
        @Persisted var nickname = ""
        @Persisted var owner: Owner?
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted(indexed: true) var name = ""
        @Persisted var pets: List<Pet>
    }
}

/// `Pet` renamed to `Animal`.
enum PetAsAnimal {
    final class Animal: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var age = 0
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Animal>
    }
}

/// `Pet` renamed to `Animal`, and its `age` to `years`.
enum PetAsAnimalYears {
    final class Animal: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var years = 0
        @Persisted var nickname: String?
        @Persisted var owner: Owner?
    }
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var pets: List<Animal>
    }
}

/// `Owner` is gone; a pet's `keeper` links to a new type, and its home is
/// an embedded object now.
enum PetKept {
    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(indexed: true) var age = 0
        @Persisted var nickname: String?
        @Persisted var keeper: Keeper?
    }
    final class Keeper: Object {
        @Persisted var name = ""
    }
}

/// A `Home` that is a top-level object in release 1 and embedded in release 2.
enum HomeV1 {
    final class Resident: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var home: Home?
    }
    final class Home: Object {
        @Persisted var city = ""
    }
}
enum HomeV2 {
    final class Resident: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var home: Home?
    }
    final class Home: EmbeddedObject {
        @Persisted var city = ""
    }
}

extension PetRenamed.Pet: @unchecked Sendable {}
extension PetRenamed.Owner: @unchecked Sendable {}
extension PetReshaped.Pet: @unchecked Sendable {}
extension PetReshaped.Owner: @unchecked Sendable {}
extension PetAsAnimal.Animal: @unchecked Sendable {}
extension PetAsAnimal.Owner: @unchecked Sendable {}
extension PetAsAnimalYears.Animal: @unchecked Sendable {}
extension PetAsAnimalYears.Owner: @unchecked Sendable {}
extension PetKept.Pet: @unchecked Sendable {}
extension PetKept.Keeper: @unchecked Sendable {}
extension HomeV1.Resident: @unchecked Sendable {}
extension HomeV1.Home: @unchecked Sendable {}
extension HomeV2.Resident: @unchecked Sendable {}
extension HomeV2.Home: @unchecked Sendable {}
