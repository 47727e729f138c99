import Chronicle
import ChronicleTesting
import Foundation
import Synchronization
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
        try await probe.require(.initial)
        try store.write { store.add(contact("Ann")) }
        let update = try await probe.nextUpdate()
        #expect(update.insertions == [0])
        #expect(update.deletions.isEmpty && update.modifications.isEmpty)
        #expect(update.collection.map(\.name) == ["Ann"])
    }

    @Test func nextUpdatePassesOverTheInitialValue() async throws {
        let probe = StreamProbe(store.objects(Contact.self).changes())
        try store.write { store.add(contact("Ann")) }
        try await Task.sleep(for: .milliseconds(20))
        try store.write { store.add(contact("Bob")) }
        let first = try await probe.nextUpdate()
        #expect(first.collection.count >= 1, "the initial value was passed over")
    }

    @Test func nextChangeReturnsTheObjectAndItsProperties() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        try store.write { ann.name = "Bob" }
        let change = try await probe.nextChange()
        #expect(change.object.name == "Bob")
        #expect(change.properties.map(\.name) == ["name"])
    }

    @Test func theSourceNamesTheStreamAndWhereTheProbeWasMade() throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes()); let line = #line
        #expect(probe.source == "ObjectChanges<Contact> (probe made at StreamProbeTests.swift:\(line))")
        let handFed = StreamProbe<ObjectChange<Contact>>(); let handFedLine = #line
        #expect(handFed.source == "the probe made at StreamProbeTests.swift:\(handFedLine)")
    }

    @Test func aRequireThatTimesOutRecordsOneIssueNamingTheStream() async throws {
        let probe = StreamProbe(store.objects(Contact.self).changes())
        try await probe.require(.initial)
        let issues = IssueCount()
        try await withKnownIssue {
            try await probe.require(.update, timeout: .milliseconds(50))
            Issue.record("not reached: require throws")
        } matching: { issue in
            issues.count.withLock { $0 += 1 }
            return text(of: issue) == "Timed out after 0.05 seconds waiting for an update from \(probe.source)"
        }
        #expect(issues.count.withLock { $0 } == 1)
    }

    @Test func aRequireOfTheWrongKindShowsWhatArrived() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        try store.write { store.delete(ann) }
        try await withKnownIssue {
            _ = try await probe.nextChange()
        } matching: { issue in
            text(of: issue) == "Expected a change from \(probe.source), but it delivered deletion"
        }
        try await withKnownIssue {
            try await probe.require(.change)
        } matching: { issue in
            text(of: issue) == "\(probe.source) ended before delivering a change"
        }
    }

    @Test func aTimeoutFailsWithAClearMessageInsteadOfHanging() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        await withKnownIssue {
            let change = await probe.next(timeout: .milliseconds(50))
            #expect(change == nil)
        } matching: { issue in
            text(of: issue) == "Timed out after 0.05 seconds waiting for a change from \(probe.source)"
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
            text(of: issue) == "Timed out after 0.1 seconds waiting for 3 changes from \(probe.source); received 1: change of Contact#1 (name: \"Ann\" → \"one\")"
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
            text(of: issue) == "Expected no change from \(probe.source) within 0.1 seconds, but received 1: change of Contact#1 (name: \"Ann\" → \"Bob\")"
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
            text(of: issue) == "\(probe.source) ended before delivering a change"
        }
    }

    @Test func expectFinishedFailsWhenTheStreamDelivers() async throws {
        let ann = try ann()
        let probe = StreamProbe(ann.changes())
        try store.write { ann.name = "still here" }
        await withKnownIssue {
            await probe.expectFinished(within: .milliseconds(100))
        } matching: { issue in
            text(of: issue) == "Expected \(probe.source) to end, but it delivered change of Contact#1 (name: \"Ann\" → \"still here\")"
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
