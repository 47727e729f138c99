import Foundation
import Testing
@testable import Chronicle

/// Issue 31: a journal's fold takes a run of creates of one type, with keys
/// and integer primary keys counted up, into its tries leaf by leaf
/// (``StoreState/foldCreateRun(_:from:changes:deferring:)``).
/// What it folds must be what folding the events one by one gives, for runs
/// it takes and runs it must leave, and a bad event in a run must be
/// reported as the event-by-event fold reports it.
@Suite("Runs of creates folded at once")
struct CreateRunTests {
    /// The state a plain read folds (event by event: no records made
    /// ahead, so no runs) and the state a read-ahead fold makes of the
    /// same journal (runs where it can).
    static func foldedBothWays(_ url: URL) throws -> (plain: StoreState, readAhead: StoreState) {
        let journal = try Journal(contentsOf: url)
        var plain = StoreState()
        var reader = journal.reader()
        try plain.fold(&reader)
        var readAhead = StoreState()
        #expect(CommitReadAhead.worthwhile(for: journal.reader()))
        try readAhead.foldReadingAhead(journal.reader())
        return (plain, readAhead)
    }

    /// The errors a plain read's fold and a read-ahead fold of `journal`
    /// end with, each expected to stop on a commit the fold rejects, and
    /// the version each state reached; `nil`, with an issue recorded, if
    /// either did not fail so.
    static func foldFailuresBothWays(_ journal: Journal)
        -> (plain: FoldError, readAhead: FoldError, plainVersion: UInt64, readAheadVersion: UInt64)? {
        var plain = StoreState(), readAhead = StoreState()
        var reader = journal.reader()
        let expected = #expect(throws: JournalFoldError.self) { try plain.fold(&reader) }
        let error = #expect(throws: JournalFoldError.self) { try readAhead.foldReadingAhead(journal.reader()) }
        guard case .fold(let plainError)? = expected, case .fold(let readAheadError)? = error else {
            Issue.record("both folds should fail on a rejected commit: \(String(describing: expected)), \(String(describing: error))")
            return nil
        }
        return (plainError, readAheadError, plain.version, readAhead.version)
    }

    /// A record's slots take their values' widths, so creates of one type
    /// in one commit may differ in size (a `String?` null or not): the
    /// read-ahead decodes each in place into a record sized as the one
    /// before, moving it when that was too short. Both folds must agree.
    @Test func createsOfOneTypeWithValuesOfOtherWidthsFoldAsEventByEvent() throws {
        let url = try JournalFixtures.journalURL()
        var configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: [Labelled.self])
        configuration.checkpoints.usesFile = false
        let pattern = [true, false, false, true, true, false, true]
        do {
            let store = try Store(configuration: configuration)
            try store.write {
                // Enough for the read-ahead (256 KB of journal).
                for n in 0..<12_000 {
                    let object = Labelled()
                    object.title = "t\(n)"
                    object.rank = n
                    object.label = pattern[n % pattern.count] ? "label \(n)" : nil
                    object.points = -n
                    store.add(object)
                }
            }
        }
        let (plain, readAhead) = try Self.foldedBothWays(url)
        #expect(readAhead.isContentEqual(plain))
        #expect(readAhead._invariantViolations().isEmpty)
        let table = try #require(readAhead.tableIndex(named: "Labelled"))
        let label = try #require(readAhead.schema[table].propertyIndex(named: "label"))
        let points = try #require(readAhead.schema[table].propertyIndex(named: "points"))
        var labelled = 0
        for (_, record) in readAhead.tables[table].objects {
            record._checkInvariants()
            if record[label] != .null { labelled += 1 }
            #expect(record[points] != .null)
        }
        #expect(labelled == (0..<12_000).filter { pattern[$0 % pattern.count] }.count)
    }

    @Test func runsTakenAndRunsLeftFoldAsEventByEvent() throws {
        let url = try JournalFixtures.journalURL()
        var configuration = Store.Configuration(fileURL: url, durability: .none,
                                                objectTypes: [TeamMember.self, RunLabel.self, RunOwner.self])
        configuration.checkpoints.usesFile = false
        do {
            let store = try Store(configuration: configuration)
            func member(_ id: Int) -> TeamMember {
                let member = TeamMember()
                member.id = id
                member.name = "member \(id)"
                member.team = "team \(id % 23)"
                return member
            }
            func label(_ code: String, _ rank: Int) -> RunLabel {
                let label = RunLabel()
                label.code = code
                label.rank = rank
                return label
            }
            // Counted up: one run per commit.
            try store.write { for id in 0..<4_000 { store.add(member(id)) } }
            // Primary keys counted down: no run.
            try store.write { for id in stride(from: 10_000, to: 7_000, by: -1) { store.add(member(id)) } }
            // Two types in turn: runs of one.
            try store.write {
                for id in 20_000..<21_000 {
                    store.add(member(id))
                    store.add(label("L\(id)", id))
                }
            }
            // String primary keys, and negative integer ones: no run.
            try store.write { for id in 0..<2_000 { store.add(label("code \(id)", id)) } }
            try store.write { for id in -2_000 ..< -1 { store.add(member(id)) } }
            // Links: no run.
            try store.write {
                let labels = Array(store.objects(RunLabel.self).prefix(50))
                for id in 0..<2_000 {
                    let owner = RunOwner()
                    owner.id = id
                    owner.label = labels[id % labels.count]
                    owner.scores.append(contentsOf: [id, id + 1])
                    store.add(owner)
                }
            }
            // The largest primary key deleted, then counted up from it again.
            try store.write {
                store.delete(store.object(ofType: TeamMember.self, forPrimaryKey: 20_999)!)
                store.delete(store.object(ofType: TeamMember.self, forPrimaryKey: 20_998)!)
            }
            try store.write { for id in 20_998..<22_000 { store.add(member(id)) } }
            try store.close()
        }
        let (plain, readAhead) = try Self.foldedBothWays(url)
        #expect(readAhead.version == plain.version)
        #expect(readAhead.isContentEqual(plain))
        // The invariants recompute every index from the records.
        #expect(readAhead._invariantViolations().isEmpty)
        let table = try #require(readAhead.tableIndex(named: "TeamMember"))
        #expect(readAhead.tables[table].objects.count == 4_000 + 3_000 + 1_000 - 2 + 1_999 + 1_002)
        let store = try Store(configuration: configuration)
        #expect(store.object(ofType: TeamMember.self, forPrimaryKey: 21_999)?.name == "member 21999")
        #expect(store.object(ofType: TeamMember.self, forPrimaryKey: 20_998)?.team == "team \(20_998 % 23)")
        let team = try #require(plain.keys(table: table, property: 2, equalTo: .string("team 5")))
        #expect(team.count > 300)
        #expect(store.objects(TeamMember.self).filter(#Predicate { $0.team == "team 5" }).count == team.count)
        #expect(store.object(ofType: RunOwner.self, forPrimaryKey: 1_999)?.scores.map { $0 } == [1_999, 2_000])
    }

    /// A journal written event by event: a type with an integer primary
    /// key and an indexed string, commits of 4,000 creates counted up, and
    /// a last commit whose run holds `bad` at event 2,500.
    static func journal(_ url: URL, bad: PersistedValue, at property: Int) throws {
        let journal = try Journal(fileURL: url, durability: .none)
        let type = TypeSchema(name: "Member", properties: [
            PropertySchema(name: "id", type: .int, isPrimaryKey: true),
            PropertySchema(name: "team", type: .string, isIndexed: true),
        ])
        try journal.append(Commit(version: 1, timestamp: Date(timeIntervalSinceReferenceDate: 1), events: [.defineType(type)]))
        var id: Int64 = 0
        for version in 2...6 as ClosedRange<UInt64> {
            var events: [Event] = []
            for index in 0..<4_000 {
                id += 1
                var values: [PersistedValue] = [.int(id), .string("team \(id % 11)")]
                if version == 6, index == 2_500 { values[property] = bad }
                events.append(.create(table: 0, key: ObjectKey(id), values: values))
            }
            try journal.append(Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)), events: events))
        }
        try journal.close()
    }

    @Test(arguments: [
        // A primary key used earlier in the same run.
        (PersistedValue.int(16_010), 0),
        // A value of the wrong kind.
        (PersistedValue.int(7), 1),
        (PersistedValue.null, 1),
    ])
    func aBadCreateInARunIsReportedAsEventByEvent(bad: PersistedValue, property: Int) throws {
        let url = try JournalFixtures.journalURL("\(#function)-\(property)-\(bad)")
        try Self.journal(url, bad: bad, at: property)
        guard let failures = Self.foldFailuresBothWays(try Journal(contentsOf: url)) else { return }
        #expect(failures.plain.eventIndex == 2_500)
        #expect(failures.readAhead == failures.plain)
        // Folded up to the commit before the bad one, both ways.
        #expect(failures.plainVersion == 5)
        #expect(failures.readAheadVersion == 5)
    }

    /// The read-ahead takes a commit's creates out of its events (issue 31);
    /// the fold folds each in its place among the events left: before the
    /// first, between two, after the last, of two types in turn, with an
    /// event on an object created just before it. A failure's event index
    /// counts the creates before it, as the event-by-event fold's does.
    @Test func createsAmongOtherEventsFoldInTheirPlaces() throws {
        let url = try JournalFixtures.journalURL()
        let member = TypeSchema(name: "Member", properties: [
            PropertySchema(name: "id", type: .int, isPrimaryKey: true),
            PropertySchema(name: "team", type: .string, isIndexed: true),
        ])
        let tag = TypeSchema(name: "Tag", properties: [PropertySchema(name: "name", type: .string)])
        func create(_ id: Int64, _ team: String = "team") -> Event {
            .create(table: 0, key: ObjectKey(id), values: [.int(id), .string(team)])
        }
        func createTag(_ key: Int64) -> Event { .create(table: 1, key: ObjectKey(key), values: [.string("tag \(key)")]) }
        do {
            let journal = try Journal(fileURL: url, durability: .none)
            try journal.append(Commit(version: 1, timestamp: Date(), events: [.defineType(member), .defineType(tag)]))
            // Enough journal for a read-ahead.
            for version in 2...5 as ClosedRange<UInt64> {
                let ids = Int64(version - 2) * 4_000 + 1 ... Int64(version - 1) * 4_000
                try journal.append(Commit(version: version, timestamp: Date(), events: ids.map { create($0, "team \($0 % 7)") }))
            }
            try journal.append(Commit(version: 6, timestamp: Date(), events: [
                create(16_001), create(16_002),
                .set(table: 0, key: ObjectKey(16_001), property: 1, value: .string("renamed")),
                createTag(1), create(16_003), create(16_004),
                .delete(table: 0, key: ObjectKey(16_002)),
                createTag(2), createTag(3),
                .set(table: 0, key: ObjectKey(1), property: 1, value: .string("first changed")),
                create(16_005), create(16_006),
            ]))
            // Event 2 reuses object 16,001's primary key.
            try journal.append(Commit(version: 7, timestamp: Date(), events: [
                create(16_007), .set(table: 0, key: ObjectKey(16_007), property: 1, value: .string("seven")),
                .create(table: 0, key: ObjectKey(16_008), values: [.int(16_001), .string("duplicate")]),
            ]))
            try journal.close()
        }
        let journal = try Journal(contentsOf: url)
        #expect(CommitReadAhead.worthwhile(for: journal.reader()))
        var plain = StoreState(), readAhead = StoreState()
        var reader = journal.reader()
        try plain.fold(&reader, through: 6)
        try readAhead.foldReadingAhead(journal.reader(), through: 6)
        #expect(readAhead.version == 6)
        #expect(readAhead.isContentEqual(plain))
        #expect(readAhead._invariantViolations().isEmpty)
        #expect(readAhead.object(table: 0, key: ObjectKey(16_001))?[1] == .string("renamed"))
        #expect(readAhead.object(table: 0, key: ObjectKey(16_002)) == nil)
        #expect(readAhead.object(table: 0, key: ObjectKey(1))?[1] == .string("first changed"))
        #expect(readAhead.keys(table: 0, property: 1, equalTo: .string("team"))?.count == 4)
        #expect(readAhead.tables[0].objects.count == 16_000 + 5)
        #expect(readAhead.tables[1].objects.count == 3)

        guard let failures = Self.foldFailuresBothWays(journal) else { return }
        #expect(failures.plain.eventIndex == 2)
        #expect(failures.readAhead == failures.plain)
        #expect(failures.readAheadVersion == 6)
    }

    /// The read-ahead decodes each create's values straight into its
    /// record's slots (``RecordStorage/decoding(count:predictedSlotBytes:_:)``). A value that
    /// does not decode, after values that did (a string on the heap among
    /// them), gives the error the reader gives, and nothing else: the slots
    /// decoded are destroyed once, and the commits before it are folded.
    @Test func aMalformedValueInACreateFailsTheReadAheadAsItFailsTheReader() throws {
        let url = try JournalFixtures.journalURL()
        try Self.journal(url, bad: .string("team"), at: 1)
        // One more commit: a create whose last value, a string, claims 127
        // bytes where 6 remain, in a record whose checksum matches.
        let type0 = TypeSchema(name: "Other", properties: [
            PropertySchema(name: "long", type: .string), PropertySchema(name: "id", type: .int),
            PropertySchema(name: "short", type: .string),
        ])
        let long = String(repeating: "long value ", count: 8)
        let commit = Commit(version: 7, timestamp: Date(timeIntervalSinceReferenceDate: 7), events: [
            .defineType(type0),
            .create(table: 1, key: ObjectKey(1), values: [.string(long), .int(1), .string("fine")]),
            .create(table: 1, key: ObjectKey(2), values: [.string(long), .int(2), .string("MARKER")]),
        ])
        var record = try JournalFormat.encodeRecord(commit)
        let marker = Array("MARKER".utf8)
        let at = try #require((0...(record.count - marker.count)).last { Array(record[$0..<$0 + marker.count]) == marker })
        #expect(at + marker.count == record.count)
        #expect(record[at - 1] == 6)
        record[at - 1] = 0x7F
        let payload = Array(record[8...])
        let crc = payload.withUnsafeBytes { JournalFormat.checksum(length: UInt32(payload.count), payload: $0) }
        withUnsafeBytes(of: crc.littleEndian) { for (offset, byte) in $0.enumerated() { record[4 + offset] = byte } }
        try JournalFixtures.write(JournalFixtures.bytes(url) + record, to: url)

        let journal = try Journal(contentsOf: url)
        #expect(journal.lastVersion == 7)
        var plain = StoreState()
        var reader = journal.reader()
        let expected = #expect(throws: JournalFoldError.self) { try plain.fold(&reader) }
        var readAhead = StoreState()
        let error = #expect(throws: JournalFoldError.self) { try readAhead.foldReadingAhead(journal.reader()) }
        guard case .journal(let expectedJournal)? = expected, case .journal(let journalError)? = error,
              case .damaged(_, 6, _) = journalError else {
            Issue.record("both folds should stop at the damaged version 7: \(String(describing: expected)), \(String(describing: error))")
            return
        }
        #expect(journalError == expectedJournal)
        #expect(readAhead.version == 6)
        #expect(readAhead.isContentEqual(plain))
        #expect(readAhead._invariantViolations().isEmpty)
    }
}

/// A string primary key: no run. (`@unchecked Sendable` restated, as
/// `Object` declares it: only `@Persisted` properties.)
final class RunLabel: Object, @unchecked Sendable {
    @Persisted(primaryKey: true) var code = ""
    @Persisted var rank = 0
}

/// A link and a list: no run. (`@unchecked Sendable` as `RunLabel`.)
final class RunOwner: Object, @unchecked Sendable {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var label: RunLabel?
    @Persisted var scores = List<Int>()
}
