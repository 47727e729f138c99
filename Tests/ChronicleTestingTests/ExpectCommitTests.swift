import Chronicle
import ChronicleTesting
import Foundation
import Testing

@Suite("Commit expectations", .freshStore)
struct ExpectCommitTests {
    let store = TestStore.current

    func ann() throws -> Contact {
        let ann = contact("Ann", age: 30)
        try store.write { store.add(ann) }
        return ann
    }

    @Test func exactChangesPass() throws {
        let ann = try ann()
        let pet = Pet()
        try store.write { store.add(pet) }
        let result = try expectCommit(in: store, changes: [
            .set(ann, \.name, to: "Bob"),
            .set(ann, \.nickname, to: "B"),
            .deleted(pet),
        ]) {
            try store.write {
                ann.name = "Bob"
                ann.nickname = "B"
                store.delete(pet)
            }
            return 42
        }
        #expect(result == 42)
    }

    @Test func netChangesAcrossSeveralCommitsCount() throws {
        let ann = try ann()
        try expectCommit(in: store, changes: [.set(ann, \.age, to: 32)]) {
            try store.write { ann.age = 31 }
            try store.write { ann.age = 32; ann.name = "Anna" }
            try store.write { ann.name = "Ann" }   // set back: no net change
        }
    }

    @Test func createdObjectsAndTheirValues() throws {
        let bob = contact("Bob")
        bob.home = Place()   // embedded: created with its parent
        try expectCommit(in: store, changes: [.created(bob), .set(bob, \.name, to: "Bob")]) {
            try store.write { store.add(bob) }
        }
    }

    @Test func nothingCommittedMatchesNoChanges() throws {
        expectCommit(in: store, changes: []) {}
    }

    @Test func aWrongValueNamesObjectPropertyExpectedAndActual() throws {
        let ann = try ann()
        try withKnownIssue {
            try expectCommit(in: store, changes: [.set(ann, \.name, to: "Bob")]) {
                try store.write { ann.name = "Carl" }
            }
        } matching: { issue in
            text(of: issue) == """
                Commits did not change what was expected (1 difference):
                  Contact#1.name: expected "Bob", actual "Carl" (was "Ann")
                Committed (version 2):
                  set Contact#1.name: "Ann" → "Carl"
                """
        }
    }

    @Test func unexpectedAndMissingChangesAreListed() throws {
        let ann = try ann()
        let pet = Pet()
        try store.write { store.add(pet) }
        try withKnownIssue {
            try expectCommit(in: store, changes: [.set(ann, \.name, to: "Bob"), .deleted(pet)]) {
                try store.write { ann.age = 31 }
            }
        } matching: { issue in
            let text = text(of: issue)
            return text.hasPrefix("Commits did not change what was expected (3 differences):")
                && text.contains(#"Contact#1.name: expected "Bob", but it did not change (it is "Ann")"#)
                && text.contains("expected a deletion of Pet#1 that never happened")
                && text.contains("unexpected: Contact#1.age: 30 → 31")
        }
    }

    @Test func unexpectedCreationsAndDeletionsAreListed() throws {
        let ann = try ann()
        try withKnownIssue {
            try expectCommit(in: store, changes: []) {
                try store.write {
                    store.delete(ann)
                    store.add(contact("Dee"))
                }
            }
        } matching: { issue in
            text(of: issue).contains("unexpected: deleted Contact#1") && text(of: issue).contains("unexpected: created Contact#2")
        }
    }

    @Test func nothingCommittedIsReported() throws {
        let ann = try ann()
        withKnownIssue {
            expectCommit(in: store, changes: [.set(ann, \.age, to: 1)]) {}
        } matching: { issue in
            text(of: issue).hasSuffix("Nothing was committed.")
        }
    }

    @Test func keyPathsThroughLinksAreRejectedWithAReason() throws {
        let ann = contact("Ann")
        ann.home = Place()
        try store.write { store.add(ann) }
        try withKnownIssue {
            try expectCommit(in: store, changes: [.set(ann, \.home?.city, to: "Oslo")]) {
                try store.write { ann.home?.city = "Oslo" }
            }
        } matching: { issue in
            text(of: issue).contains("reads home.city, a property of another object")
        }
        // Naming the embedded object instead works.
        try expectCommit(in: store, changes: [.set(ann.home!, \.city, to: "Bergen")]) {
            try store.write { ann.home?.city = "Bergen" }
        }
    }

    @Test func unmanagedObjectsAreReported() {
        withKnownIssue {
            expectCommit(in: store, changes: [.deleted(Contact())]) {}
        } matching: { issue in
            text(of: issue).contains("deleted Contact: the object is not managed by this store")
        }
    }

    @Test func theAsyncFormAwaitsTheBody() async throws {
        let ann = try ann()
        try await expectCommit(in: store, changes: [.set(ann, \.age, to: 40)]) {
            try await store.asyncWrite { ann.age = 40 }
        }
    }

    @Test func aThrowingBodyRethrowsWithoutChecking() throws {
        struct Oops: Error {}
        #expect(throws: Oops.self) {
            try expectCommit(in: store, changes: [.created(Contact())]) { throw Oops() }
        }
    }
}
