import Foundation
import Testing
@testable import Chronicle

/// Where Swift gives no way to throw (property setters and getters), misuse
/// stops the program with a message that says what to do.
@Suite("Model preconditions")
struct ModelPreconditionTests {
    @Test func settingAManagedPropertyOutsideAWriteSaysToUseStoreWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try Store(configuration: .inMemory())
            let person = Person()
            try store.write { store.add(person) }
            person.firstName = "outside"
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("inside store.write"), "stderr: \(message)")
    }

    @Test func readingADeletedObjectSaysToCheckIsInvalidated() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try Store(configuration: .inMemory())
            let person = Person()
            try store.write { store.add(person) }
            try store.write { store.delete(person) }
            _ = person.firstName
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("deleted") && message.contains("isInvalidated"), "stderr: \(message)")
    }

    @Test func modifyingAFrozenObjectSaysToThawIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = try Store(configuration: .inMemory())
            let person = Person()
            try store.write { store.add(person) }
            let frozen = person.freeze()
            try store.write { frozen.firstName = "x" }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("frozen") && message.contains("thaw()"), "stderr: \(message)")
    }

    @Test func freezingAnUnmanagedListSaysToAddItsObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = List<Int>().freeze()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("only a managed List<Int> can be frozen; add the object that holds it to a store"), "stderr: \(message)")
    }

    @Test func freezingAnUnmanagedSetSaysToAddItsObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = MutableSet<String>().freeze()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("only a managed MutableSet<String> can be frozen; add the object that holds it to a store"), "stderr: \(message)")
    }

    @Test func freezingAnUnmanagedMapSaysToAddItsObject() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = Map<String, Int>().freeze()
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("only a managed Map<String, Int> can be frozen; add the object that holds it to a store"), "stderr: \(message)")
    }
}
