import Foundation
import Testing
@testable import Chronicle

/// A store lives exactly as long as something a user can reach refers to
/// it: its table bindings (cached strongly by the store) reference it
/// unowned, so handles, collections, linking objects and results must keep
/// it alive themselves, and nothing may keep it alive after they are gone.
@Suite("Store lifetime")
struct StoreLifetimeTests {
    /// A store with an employee, her dog, and the link between them.
    static func makeStore() throws -> Store {
        let store = try Store(configuration: .inMemory(identifier: "lifetime-\(UUID())"))
        try store.write {
            let employee = Employee()
            employee.firstName = "Ada"
            let dog = Dog()
            dog.name = "Rex"
            employee.dogs.append(dog)
            store.add(employee)
        }
        return store
    }

    @Test func aStoreNobodyReferencesIsFreedAfterHandingOutObjects() throws {
        weak var weakStore: Store?
        try {
            let store = try Self.makeStore()
            weakStore = store
            // Bind every kind of holder, then drop them all.
            let employee = try #require(store.objects(Employee.self).first)
            #expect(employee.dogs.first?.person.first?.firstName == "Ada")
            #expect(store.objects(Dog.self).filter(#Predicate { $0.name == "Rex" }).count == 1)
        }()
        #expect(weakStore == nil, "the store's binding cache must not keep it alive")
    }

    @Test func anObjectKeepsItsStoreAlive() throws {
        weak var weakStore: Store?
        var employee: Employee? = try {
            let store = try Self.makeStore()
            weakStore = store
            return store.objects(Employee.self).first
        }()
        #expect(weakStore != nil)
        #expect(employee?.firstName == "Ada")
        employee = nil
        #expect(weakStore == nil)
    }

    enum Holder: CaseIterable, Sendable { case list, linkingObjects, results }

    @Test(arguments: Holder.allCases)
    func aCollectionAloneKeepsItsStoreAlive(_ holder: Holder) throws {
        weak var weakStore: Store?
        var read: (() -> String?)? = try {
            let store = try Self.makeStore()
            weakStore = store
            let employee = try #require(store.objects(Employee.self).first)
            switch holder {
            case .list:
                let dogs = employee.dogs
                return { dogs.first?.name }
            case .linkingObjects:
                let owners = try #require(employee.dogs.first).person
                return { owners.first?.firstName }
            case .results:
                let results = store.objects(Dog.self)
                return { results.first?.name }
            }
        }()
        #expect(weakStore != nil)
        #expect(read?() != nil)
        read = nil
        #expect(weakStore == nil)
    }
}
