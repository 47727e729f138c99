import Chronicle
import ChronicleTesting
import Foundation
import Synchronization
import Testing

/// `expect(_:_:studioPageOf:)` and `recordStudioPage(of:)`: a failure names
/// a Studio page of the store's journal, written to a file.
@Suite("Studio page on a failed expectation")
struct StudioOnFailureTests {
    @Test(.freshStore) func aFailureNamesTheWrittenPage() throws {
        let store = TestStore.current
        try store.write(label: "add Ann") { store.add(contact("Ann")) }
        let path = Mutex<String?>(nil)
        withKnownIssue {
            expect(store.objects(Contact.self).count == 2, "two contacts", studioPageOf: store)
        } matching: { issue in
            let message = text(of: issue)
            guard message.hasPrefix("Expectation failed: two contacts — the store's history: ") else { return false }
            path.withLock { $0 = message.components(separatedBy: "history: ").last }
            return true
        }
        let page = try #require(path.withLock { $0 })
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html == store.studioPage())
        #expect(html.contains("add Ann"), "the page holds the journal's history")
    }

    @Test(.freshStore) func aPassingExpectationWritesNothing() throws {
        let store = TestStore.current
        try store.write { store.add(contact("Ann")) }
        expect(store.objects(Contact.self).count == 1, studioPageOf: store)
    }

    @Test(.freshStore) func recordStudioPageReturnsTheFile() throws {
        let store = TestStore.current
        try store.write { store.add(contact("Bob")) }
        let page = try #require(recordStudioPage(of: store, named: "bob"))
        #expect(page.lastPathComponent == "bob.html")
        #expect(try String(contentsOf: page, encoding: .utf8) == store.studioPage())
    }
}
