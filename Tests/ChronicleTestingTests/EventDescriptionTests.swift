import Chronicle
import ChronicleTesting
import Foundation
import Testing

@Suite("Event descriptions", .freshStore)
struct EventDescriptionTests {
    let store = TestStore.current

    @Test func setsShowTheOldAndNewValue() throws {
        let ann = contact("Ann")
        try store.write { store.add(ann) }
        try store.write {
            ann.name = "Bob"
            ann.name = "Carl"
            ann.nickname = "C"
        }
        let events = try store.lastCommitEvents()
        #expect(events == [
            #"set Contact#1.name: "Ann" → "Bob""#,
            #"set Contact#1.name: "Bob" → "Carl""#,
            #"set Contact#1.nickname: nil → "C""#,
        ])
    }

    @Test func everyKindOfEventIsNamedFromTheSchema() throws {
        let ann = contact("Ann")
        ann.home = Place()
        try store.write { store.add(ann) }
        let rex = Pet(), tom = Pet()
        try store.write {
            ann.pets.append(rex)
            ann.pets.append(tom)
            ann.pets.move(from: 0, to: 1)
            ann.pets.remove(at: 0)
            ann.tags.insert("a")
            ann.tags.remove("a")
            ann.scores["go"] = 1
            ann.scores["go"] = 2
            ann.scores.removeObject(for: "go")
            ann.home?.city = "Oslo"
            store.delete(rex)
        }
        let lines = try store.lastCommitEvents()
        #expect(lines.contains(#"insert Contact#1.pets[0]: Pet#1"#))
        #expect(lines.contains(#"move Contact#1.pets[0] → [1]"#))
        #expect(lines.contains(#"remove Contact#1.pets[0] (was Pet#2)"#))
        #expect(lines.contains(#"insert Contact#1.tags: "a""#))
        #expect(lines.contains(#"remove Contact#1.tags: "a""#))
        #expect(lines.contains(#"set Contact#1.scores["go"]: ∅ → 1"#))
        #expect(lines.contains(#"set Contact#1.scores["go"]: 1 → 2"#))
        #expect(lines.contains(#"remove Contact#1.scores["go"]"#))
        #expect(lines.contains(#"set Place#1.city: "" → "Oslo""#))
        #expect(lines.contains("delete Pet#1"))
    }

    @Test func aRangeAndTheWholeJournal() throws {
        let ann = contact("Ann")
        try store.write { store.add(ann) }
        try store.write { ann.age = 31 }
        try store.write { store.delete(ann) }
        let all = try store.journalForReading.eventDescriptions()
        #expect(all.count == 6)   // define Contact, Place and Pet (linked types); create, set, delete
        #expect(all.first?.hasPrefix("define Contact(") == true)
        #expect(all.contains("define embedded Place(city: String)"))
        #expect(all.contains { $0.hasPrefix(#"create Contact#1 {_id: ObjectId("#) && $0.hasSuffix(#"name: "Ann", age: 0, nickname: nil, home: nil, pets: [], tags: {}, scores: [:]}"#) })
        let range = try store.eventDescriptions(from: 2, through: 3)
        #expect(range == ["set Contact#1.age: 0 → 31", "delete Contact#1"])
        let last = try store.journalForReading.eventDescriptions(from: 3)
        #expect(last == ["delete Contact#1"])
    }
}
