import Foundation
import Testing
@testable import Chronicle

@Suite("Replay: history and diff")
struct ReplayHistoryTests {
    static let commits = RandomHistory.commits(seed: 11, count: 200)

    /// A store over the random history, with small checkpoint spacing.
    static func store() throws -> (Store, [StoreState]) {
        let url = try ReplayFixtures.journal(commits, name: "history")
        var configuration = Store.Configuration(fileURL: url)
        configuration.checkpoints = .init(interval: 20, usesFile: false)
        return (try Store(configuration: configuration), try ReplayFixtures.prefixStates(commits))
    }

    @Test func objectHistoryAgreesWithTheStatesOfTheJournal() throws {
        let (store, states) = try Self.store()
        let final = states.last!
        for table in final.schema.indices {
            for raw in Int64(1)..<final.nextKey(table: table).rawValue {
                let key = ObjectKey(raw)
                var expected: [(UInt64, String)] = []
                for version in 1..<states.count {
                    let before = states[version - 1].object(table: table, key: key)
                    let after = states[version].object(table: table, key: key)
                    switch (before, after) {
                    case (nil, let record?): expected.append((UInt64(version), "created \(Array(record.values))"))
                    case (let record?, nil): expected.append((UInt64(version), "deleted \(Array(record.values))"))
                    case (let old?, let new?) where old != new:
                        let changed = zip(old.values, new.values).enumerated().filter { $1.0 != $1.1 }
                            .map { "\(final.schema[table].properties[$0.offset].name): \($0.element.0) → \($0.element.1)" }
                        expected.append((UInt64(version), "modified \(changed)"))
                    default: break
                    }
                }
                let history = try store.timeTravel.history(table: table, key: key, through: store.version)
                let actual = history.map { entry -> (UInt64, String) in
                    switch entry.change {
                    case .created(let values): (entry.version, "created \(values.map(\.value))")
                    case .deleted(let values): (entry.version, "deleted \(values.map(\.value))")
                    case .modified(let changes): (entry.version, "modified \(changes.map { "\($0.name): \($0.oldValue) → \($0.newValue)" })")
                    }
                }
                #expect(actual.map(\.0) == expected.map(\.0), "table \(table) key \(key)")
                #expect(actual.map(\.1) == expected.map(\.1), "table \(table) key \(key)")
                #expect(history.allSatisfy { $0.timestamp == Self.commits[Int($0.version) - 1].timestamp })
            }
        }
    }

    @Test func propertyHistoryFollowsLinksAtEveryVersion() throws {
        let (store, states) = try Self.store()
        typealias P = RandomHistory.Person
        for raw in Int64(1)..<states.last!.nextKey(table: P.table).rawValue {
            let key = ObjectKey(raw)
            for path in [["name"], ["address", "city"], ["dogs", "name"]] {
                var expected: [UInt64] = []
                for version in 1..<states.count {
                    let old = states[version - 1].value(table: P.table, key: key, path: path)
                    let new = states[version].value(table: P.table, key: key, path: path)
                    if old != new { expected.append(UInt64(version)) }
                }
                let history = try store.timeTravel.history(table: P.table, key: key, path: path, through: store.version)
                #expect(history.map(\.version) == expected, "person \(key) \(path)")
                if let first = history.first, first.oldValue == nil {
                    #expect(states[Int(first.version) - 1].object(table: P.table, key: key) == nil)
                }
            }
        }
    }

    @Test(arguments: [(0 as UInt64, 201 as UInt64), (1, 2), (50, 120), (120, 50), (7, 7), (199, 201)])
    func diffAgreesWithTheTwoStates(from: UInt64, to: UInt64) throws {
        let (store, states) = try Self.store()
        let diff = try store.diff(from: from, to: to)
        let old = states[Int(from)], new = states[Int(to)]
        var inserted: [TableKey] = [], deleted: [TableKey] = [], modified: [TableKey: [String]] = [:]
        for table in new.schema.indices {
            var keys = Set(old.objects(table: table).map(\.key))
            keys.formUnion(new.objects(table: table).map(\.key))
            for key in keys.sorted() {
                let object = TableKey(table: table, key: key)
                switch (old.object(table: table, key: key), new.object(table: table, key: key)) {
                case (nil, _?): inserted.append(object)
                case (_?, nil): deleted.append(object)
                case (let a?, let b?) where a != b:
                    modified[object] = zip(a.values, b.values).enumerated().filter { $1.0 != $1.1 }
                        .map { new.schema[table].properties[$0.offset].name }
                default: break
                }
            }
        }
        #expect(diff.inserted.map { TableKey(table: $0.table, key: $0.key) } == inserted)
        #expect(diff.deleted.map { TableKey(table: $0.table, key: $0.key) } == deleted)
        #expect(diff.modified.count == modified.count)
        for object in diff.modified {
            #expect(object.changes.map(\.name) == modified[TableKey(table: object.table, key: object.key)])
            for change in object.changes {
                let index = new.schema[object.table].propertyIndex(named: change.name)!
                #expect(change.oldValue == old.object(table: object.table, key: object.key)!.values[index])
                #expect(change.newValue == new.object(table: object.table, key: object.key)!.values[index])
            }
        }
        for object in diff.inserted {
            #expect(object.values.map(\.value) == Array(new.object(table: object.table, key: object.key)!.values))
        }
        #expect(diff.schemaChanges.isEmpty == !(min(from, to) == 0 && max(from, to) >= 1))
    }

    @Test func modelHistoryByKeyPathWithLabelsAndValues() throws {
        let store = try Store(configuration: .inMemory(identifier: "history", clock: ReplayFixtures.clock()))
        let person = Person()
        person.firstName = "Jason"
        try store.write(label: "hire") { store.add(person) }                               // v1
        try store.write(label: "rename") { person.firstName = "David" }                    // v2
        try store.write(label: "move") {                                                    // v3
            let address = Address()
            address.city = "Oslo"
            person.address = address
        }
        try store.write(label: "last name") { person.lastName = "Webb" }                   // v4
        try store.write(label: "move again") { person.address?.city = "Rome" }             // v5
        try store.write(label: "fire") { store.delete(person) }                            // v6

        let names = try store.history(of: person, keyPath: \.firstName)
        #expect(names.map(\.version) == [1, 2, 6])
        #expect(names.map(\.label) == ["hire", "rename", "fire"])
        // A typed key path gives typed values (issue 27).
        #expect(names[0].oldValue == nil && names[0].newValue == "Jason")
        #expect(names[1].oldValue == "Jason" && names[1].newValue == "David")
        #expect(names[2].oldValue == "David" && names[2].newValue == nil)
        #expect(names[1].timestamp == Date(timeIntervalSince1970: 1_767_225_602))
        // The untyped form keeps the stored values.
        let untyped = try store.history(of: person, keyPath: \Person.firstName as PartialKeyPath<Person>)
        #expect(untyped.map(\.newValue) == [.string("Jason"), .string("David"), nil])

        let cities = try store.history(of: person, keyPath: \.address?.city)
        #expect(cities.map(\.version) == [1, 3, 5, 6])
        #expect(cities.map(\.property) == ["address.city", "address.city", "address.city", "address.city"])
        #expect(cities[1].oldValue == .some(nil) && cities[1].newValue == "Oslo")
        #expect(cities[2].newValue == "Rome")

        let all = try store.history(of: person)
        #expect(all.map(\.version) == [1, 2, 3, 4, 5, 6].filter { $0 != 5 })  // v5 changed the address object, not the person
        guard case .created(let values) = all[0].change, case .modified(let changes) = all[1].change,
              case .deleted = all.last!.change else {
            Issue.record("\(all)")
            return
        }
        #expect(values.first { $0.name == "firstName" }?.value == .string("Jason"))
        #expect(changes == [PropertyValueChange(name: "firstName", oldValue: .string("Jason"), newValue: .string("David"))])

        let diff = try store.diff(from: 1, to: 5)
        #expect(diff.inserted.map(\.typeName) == ["Address"])
        #expect(diff.modified.map(\.typeName) == ["Person"])
        #expect(diff.modified[0].changes.map(\.name) == ["firstName", "lastName", "address"])
        let undo = try store.diff(from: 5, to: 1)
        #expect(undo.deleted.map(\.typeName) == ["Address"])
        #expect(undo.modified[0].changes.map(\.newValue) == diff.modified[0].changes.map(\.oldValue))
        #expect(throws: StoreError.self) { try store.diff(from: 1, to: 7) }
    }
}
