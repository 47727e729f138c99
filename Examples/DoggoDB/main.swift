import Chronicle
import Foundation

// DoggoDB: write a few commits to a journal, close the store, reopen it and
// print the state folded from the journal.
//
//   swift run DoggoDB [journal-path]
//
// Without a path the journal goes to a temporary folder. Inspect it with
// `swift run chronicle log <path>`.

let url: URL
if CommandLine.arguments.count > 1 {
    url = URL(fileURLWithPath: CommandLine.arguments[1])
} else {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doggodb-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    url = folder.appendingPathComponent("doggo.journal")
}

do {
    let existed = FileManager.default.fileExists(atPath: url.path)
    let store = try Store(configuration: .init(fileURL: url, objectTypes: [Person.self, Dog.self]))
    // Opening a new journal with the model classes commits their schema first.
    let opened = store.version

    let jason = Person()
    jason.firstName = "Jason"
    jason.lastName = "bourne"
    jason.personId = "P-001"
    jason.businessUnit = .educationCommunityAndDocs
    let maui = Dog()
    maui.name = "Maui"
    maui.breed = "Labrador"
    maui.weight = 30
    jason.dogs.append(maui)

    try store.write(label: "hire Jason") { store.add(jason) }
    try store.write(label: "adopt dog") {
        let lita = Dog()
        lita.name = "Lita"
        lita.breed = "Border Collie"
        jason.dogs.append(lita)
    }
    try store.write(label: "promote") { jason.businessUnit = .management }
    if existed {
        print("appended \(store.version - opened) commits to \(url.path), now at version \(store.version)")
    } else {
        print("wrote \(store.version) commits to \(url.path): commit \(opened) records the schema "
            + "(the Person and Dog types), commits \(opened + 1)–\(store.version) the three writes above")
    }
}

// Reopen: everything below is folded from the journal alone.
let store = try Store(configuration: .init(fileURL: url))
print("reopened at version \(store.version)")
for person in store.objects(Person.self) {
    print("\(person.firstName) \(person.lastName) — \(person.businessUnit.rawValue), dogs: \(person.dogs.map(\.name).joined(separator: ", "))")
}
for dog in store.objects(Dog.self).sorted(by: \.name) {
    print("  \(dog.name) (\(dog.breed), \(dog.weight) kg) belongs to \(dog.person.first?.firstName ?? "nobody")")
}
for profile in store.objects(Profile.self) {
    print("profile: \(profile.firstName) \(profile.lastNameInitial.map(String.init) ?? "")., \(profile.dogs.count) dogs")
}
