import Foundation
import Testing
@testable import Chronicle

/// A projection whose property is a transformation, not writable.
final class GizmoInitial: Projection<Gizmo> {
    @Projected(\Gizmo.name.first) var initial
}
extension GizmoInitial: @unchecked Sendable {}

/// Issue 27: messages name types, properties and key values as the app
/// wrote them — never table indexes, object keys or `<computed 0x…>`.
@Suite("Messages in the app's terms")
struct UserFacingMessageTests {
    static func store() throws -> (Store, Gizmo) {
        let store = try scratchStore()
        let gizmo = Gizmo()
        gizmo.id = 1
        gizmo.name = "one"
        try store.write { store.add(gizmo) }
        return (store, gizmo)
    }

    static func message(_ body: () throws -> Void) -> String {
        do { try body() } catch { return "\(error)" }
        return "no error"
    }

    @Test func duplicatePrimaryKey() throws {
        let (store, _) = try Self.store()
        let again = Gizmo()
        again.id = 1
        #expect(Self.message { try store.write { store.add(again) } }
            == "the write was rolled back: a Gizmo with id 1 already exists; to update it, add with update: .modified or .all")
    }

    @Test func writingADeletedObject() throws {
        let (store, gizmo) = try Self.store()
        let stale = try #require(store.object(ofType: Gizmo.self, forPrimaryKey: 1))
        try store.write { store.delete(gizmo) }
        #expect(Self.message { try store.write { stale.name = "two" } }
            == "the write was rolled back: cannot change 'name' of a Gizmo that was deleted; check isInvalidated before writing to an object another write may delete")
        #expect(Self.message { try store.write { store.delete(stale) } }
            == "the write was rolled back: this Gizmo was already deleted")
    }

    @Test func keyPathsPrintByPropertyNames() throws {
        #expect(KeyPathMapping.describe(\Person.address?.city) == #"\Person.address.city"#)
        #expect(KeyPathMapping.describe(\Employee.lastName.localizedCapitalized.first) == #"a key path computed from \Employee.lastName"#)
        #expect(KeyPathMapping.describe(\Gizmo.constant) == "a key path from Gizmo to Int")
        let store = try scratchStore()
        #expect(Self.message { _ = try store.objects(Gizmo.self).filtered(#Predicate<Gizmo> { $0.constant == 1 }) }
            == "a key path from Gizmo to Int is not a persisted property, so it cannot be queried")
    }

    @Test func unobservableKeyPathStops() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, gizmo) = try Self.store()
            _ = gizmo.changes(keyPaths: [\.constant])
        }.map { result in
            let text = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(text.contains("Chronicle: cannot observe this key path: a key path from Gizmo to Int reads no @Persisted property"))
            #expect(!text.contains("<computed"))
        }
    }

    @Test func writingATransformedProjectionStops() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (store, gizmo) = try Self.store()
            let projection = GizmoInitial(projecting: gizmo)
            try store.write { projection.initial = "x" }
        }.map { result in
            let text = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(text.contains(#"Chronicle: GizmoInitial.initial projects a key path computed from \Gizmo.name, which is not writable"#))
        }
    }

    @Test func addingAnotherStoresObjectNamesTheCopy() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (_, gizmo) = try Self.store()
            let other = try scratchStore("other")
            try other.write { other.add(gizmo) }
        }.map { result in
            let text = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(text.contains("Chronicle: this Gizmo belongs to another store; add a copy instead: Gizmo(value: object)"))
        }
    }
}
