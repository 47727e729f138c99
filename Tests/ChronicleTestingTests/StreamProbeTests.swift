import Chronicle
import ChronicleTesting
import Foundation
import Testing

@Suite("Stream probes", .freshStore)
struct StreamProbeTests {
    let store = TestStore.current

    func ann() throws -> Contact {
        let ann = contact("Ann")
        try store.write { store.add(ann) }
        return ann
    }

    static func names(_ change: ObjectChange<some Sendable>?) -> [String] {
        if case .change(_, let properties)? = change { return properties.map(\.name) }
        return []
    }

    @Test func nextReturnsTheNextChange() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        try store.write { ann.name = "Bob" }
        #expect(Self.names(await probe.next()) == ["name"])
        try store.write { ann.age = 3 }
        #expect(Self.names(await probe.next()) == ["age"])
    }

    @Test func nextNCollectsSeveral() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes(keyPaths: [\.age]))
        let writer = Task {
            for age in 1...3 {
                try store.write { ann.age = age }
                try await Task.sleep(for: .milliseconds(20))   // let each change be read
            }
        }
        let changes = await probe.next(3)
        #expect(changes.count == 3)
        try await writer.value
    }

    @Test func collectionStreamsToo() async throws {
        let probe = StreamProbe(store.objects(Contact.self).changes())
        guard case .initial? = await probe.next() else { Issue.record("no initial"); return }
        try store.write { store.add(contact("Ann")) }
        guard case .update(_, _, let insertions, _)? = await probe.next() else { Issue.record("no update"); return }
        #expect(insertions == [0])
    }

    @Test func aTimeoutFailsWithAClearMessageInsteadOfHanging() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        await withKnownIssue {
            let change = await probe.next(timeout: .milliseconds(50))
            #expect(change == nil)
        } matching: { issue in
            text(of: issue) == "Timed out after 0.05 seconds waiting for a change"
        }
        // The iterator survived the timeout: a later change still arrives.
        try store.write { ann.name = "late" }
        #expect(Self.names(await probe.next()) == ["name"])
    }

    @Test func nextNReportsWhatArrivedBeforeTheTimeout() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        try store.write { ann.name = "one" }
        await withKnownIssue {
            let changes = await probe.next(3, timeout: .milliseconds(100))
            #expect(changes.count == 1)
        } matching: { issue in
            text(of: issue).hasPrefix("Timed out after 0.1 seconds waiting for 3 changes; received 1: ")
        }
    }

    @Test func expectNoChangePassesWhenNothingObservedChanges() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes(keyPaths: [\.name]))
        try store.write { ann.age = 99 }
        await probe.expectNoChange()
        #expect(probe.pending.isEmpty)
    }

    @Test func expectNoChangeFailsNamingTheChange() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes(keyPaths: [\.name]))
        try store.write { ann.name = "Bob" }
        await withKnownIssue {
            await probe.expectNoChange(within: .milliseconds(100))
        } matching: { issue in
            text(of: issue).hasPrefix("Expected no change within 0.1 seconds, but received 1: ")
        }
        #expect(probe.pending.count == 1, "what arrived stays readable")
    }

    @Test func deletionEndsTheStream() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        try store.write { store.delete(ann) }
        guard case .deleted? = await probe.next() else { Issue.record("expected .deleted"); return }
        await probe.expectFinished()
        #expect(probe.isFinished)
        await withKnownIssue {
            _ = await probe.next()
        } matching: { issue in
            text(of: issue) == "The stream ended before delivering a change"
        }
    }

    @Test func expectFinishedFailsWhenTheStreamDelivers() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        try store.write { ann.name = "still here" }
        await withKnownIssue {
            await probe.expectFinished(within: .milliseconds(100))
        } matching: { issue in
            text(of: issue).hasPrefix("Expected the stream to end, but it delivered ")
        }
    }

    @Test func callbacksFeedAHandMadeProbe() async throws {
        let ann = try ann()
        let probe = StreamProbe<ObjectChange<Contact>>()
        let token = ann.observe(keyPaths: ["name"]) { probe.record($0) }
        try store.write { ann.name = "Bob" }
        #expect(Self.names(await probe.next()) == ["name"])
        token.invalidate()
    }

    @Test func droppingAProbeEndsItsStream() async throws {
        let ann = try ann()
        var probe: StreamProbe<ObjectChange<Contact>>? = StreamProbe(ann.changes())
        _ = probe
        probe = nil
        // The consuming task was cancelled; a commit reaches no one and nothing hangs.
        try store.write { ann.name = "after" }
        let fresh = StreamProbe(ann.changes())
        try store.write { ann.name = "again" }
        #expect(Self.names(await fresh.next()) == ["name"])
    }
}
