import Foundation
import Testing
@testable import Chronicle

/// A model whose init reads a property after `super.init()`: a managed
/// handle must already be bound there (handles skip initial values).
final class Greeter: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = "unset"
    @Persisted var tags = List<String>()
    var nameSeenInInit = ""

    required init() {
        super.init()
        nameSeenInInit = name
    }
}
extension Greeter: @unchecked Sendable {}

@Suite("Managed handles")
struct HandleTests {
    @Test func handlesAreBoundFromInsideTheirInit() throws {
        let store = try scratchStore()
        try store.write {
            let greeter = Greeter()
            #expect(greeter.nameSeenInInit == "unset")
            greeter.id = 1
            greeter.name = "Ada"
            greeter.tags.append("x")
            store.add(greeter)
        }
        let handle = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 1))
        #expect(handle.isManaged)
        #expect(handle.nameSeenInInit == "Ada")
        #expect(handle.name == "Ada")
        #expect(Array(handle.tags) == ["x"])
        let fromResults = try #require(store.objects(Greeter.self).first)
        #expect(fromResults.nameSeenInInit == "Ada")
        // Unmanaged objects made after a handle still collect their own values.
        let fresh = Greeter()
        #expect(!fresh.isManaged)
        #expect(fresh.name == "unset")
        fresh.name = "Bob"
        #expect(fresh.name == "Bob")
    }

    @Test func frozenAndLiveHandlesReadTheirOwnVersions() throws {
        let store = try scratchStore()
        try store.write {
            let greeter = Greeter()
            greeter.id = 2
            greeter.name = "one"
            store.add(greeter)
        }
        let live = try #require(store.object(ofType: Greeter.self, forPrimaryKey: 2))
        let frozen = store.objects(Greeter.self).freeze()[0]
        try store.write { live.name = "two" }
        #expect(live.name == "two")
        #expect(frozen.name == "one")
        try store.write { store.delete(live) }
        #expect(live.isInvalidated)
        #expect(frozen.name == "one")
    }

    @Test func onceReferenceKeepsTheFirstStore() {
        final class Box: Sendable { let n: Int; init(_ n: Int) { self.n = n } }
        let reference = OnceReference<Box>()
        #expect(reference.load() == nil)
        let first = Box(1)
        #expect(reference.storeIfNil(first) === first)
        #expect(reference.storeIfNil(Box(2)) === first)
        #expect(reference.load()?.n == 1)
    }
}
