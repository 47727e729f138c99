import Foundation
import Testing
@testable import Chronicle

/// Issue 31: a long journal is read and decoded on a thread of its own
/// while the opening thread folds (``CommitReadAhead``).
@Suite("Reading a journal ahead of its fold")
struct CommitReadAheadTests {
    /// A journal of `count` commits, commit 10 holding more events than a
    /// batch (so it is a batch alone), closed.
    static func journal(_ url: URL, count: UInt64) throws -> Journal {
        let journal = try Journal(fileURL: url, durability: .none)
        for version in 1...count {
            try journal.append(JournalFixtures.commit(version, payload: Int(version % 40),
                                                      events: version == 10 ? CommitReadAhead.batchEvents + 5 : 1 + Int(version % 3)))
        }
        try journal.close()
        return try Journal(contentsOf: url)
    }

    /// A read-ahead of `reader`, waiting (up to 10 s) while the thread
    /// reads for another fold: tests run in parallel, and opening a store
    /// with a long journal uses it too.
    static func readAhead(_ reader: CommitReader) throws -> CommitReadAhead {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            if let readAhead = CommitReadAhead(reader) { return readAhead }
            try #require(ContinuousClock.now < deadline, "the read-ahead thread stayed busy")
            Thread.sleep(forTimeInterval: 0.001)
        }
    }

    /// A closed store of 20,000 items in 20 commits, long enough to be
    /// read ahead, and its configuration (no checkpoint file, so an open folds).
    static func longStore() throws -> (URL, Store.Configuration) {
        let url = try JournalFixtures.journalURL()
        var configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: [SharedItem.self])
        configuration.checkpoints.usesFile = false
        let store = try Store(configuration: configuration)
        for batch in 0..<20 {
            try store.write {
                for id in batch * 1_000..<(batch + 1) * 1_000 {
                    store.create(SharedItem.self, value: ["id": id, "name": "item \(id)"])
                }
            }
        }
        try store.close()
        return (url, configuration)
    }

    /// A store of `type` that `fill` writes and closes, long enough to be
    /// read ahead; then the state a plain read folds (each object filed at
    /// once, no records made ahead) and the store reopened (which reads
    /// ahead), with no checkpoint file.
    static func foldedBothWays(_ type: Object.Type, _ fill: (Store) throws -> Void) throws -> (plain: StoreState, reopened: Store) {
        let url = try JournalFixtures.journalURL()
        var configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: [type])
        configuration.checkpoints.usesFile = false
        do {
            let store = try Store(configuration: configuration)
            try fill(store)
            try store.close()
        }
        var plain = StoreState()
        var reader = try Journal(contentsOf: url).reader()
        #expect(CommitReadAhead.worthwhile(for: reader))
        try plain.fold(&reader)
        #expect(plain._invariantViolations().isEmpty)
        return (plain, try Store(configuration: configuration))
    }

    @Test func handsOverTheReadersCommitsInOrder() throws {
        let journal = try Self.journal(JournalFixtures.journalURL(), count: 5_000)
        let expected = try JournalFixtures.readAll(journal)
        let readAhead = try Self.readAhead(journal.reader())
        var read: [Commit] = []
        while let commit = try readAhead.next() { read.append(commit) }
        #expect(read.count == 5_000)
        #expect(read == expected)
        #expect(try readAhead.next() == nil)
    }

    @Test func throwsTheReadersErrorAfterTheCommitsBeforeIt() throws {
        let url = try JournalFixtures.journalURL()
        _ = try Self.journal(url, count: 3_000)
        // Version 3001: a whole record with a matching checksum whose payload
        // is no commit. Opening checks framing only; reading finds it.
        var payload: [UInt8] = [0xB9, 0x17]  // version 3001 as a varint
        payload += [UInt8](repeating: 0xEE, count: 40)
        var record = withUnsafeBytes(of: UInt32(payload.count).littleEndian) { Array($0) }
        let crc = payload.withUnsafeBytes { JournalFormat.checksum(length: UInt32(payload.count), payload: $0) }
        record += withUnsafeBytes(of: crc.littleEndian) { Array($0) } + payload
        try JournalFixtures.write(JournalFixtures.bytes(url) + record, to: url)
        let journal = try Journal(contentsOf: url)
        #expect(journal.lastVersion == 3_001)

        var reader = journal.reader()
        var direct = 0
        let expected = JournalFixtures.journalError { while try reader.next() != nil { direct += 1 } }
        guard case .damaged(_, 3_000, _)? = expected else {
            Issue.record("the reader itself should find damage after version 3000, not \(String(describing: expected))")
            return
        }
        let readAhead = try Self.readAhead(journal.reader())
        var read = 0
        let error = JournalFixtures.journalError { while try readAhead.next() != nil { read += 1 } }
        #expect(read == direct)
        #expect(error == expected)
        #expect(JournalFixtures.journalError { try readAhead.next() } == expected)
    }

    @Test func droppedEarlyItsThreadStopsAndLetsTheJournalGo() throws {
        let url = try JournalFixtures.journalURL()
        weak var weakJournal: Journal?
        do {
            let journal = try Self.journal(url, count: 20_000)
            weakJournal = journal
            let readAhead = try Self.readAhead(journal.reader())
            #expect(try readAhead.next()?.version == 1)
            // The thread is now blocked with its batches full, far from the end.
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while weakJournal != nil && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(weakJournal == nil, "the read-ahead's thread still holds the journal")
    }

    @Test func theThreadReadsForOneFoldAtATime() throws {
        let journal = try Self.journal(JournalFixtures.journalURL(), count: 20_000)
        var first: CommitReadAhead? = try Self.readAhead(journal.reader())
        #expect(try first?.next()?.version == 1)
        // The thread is busy with the first, its batches full: no second.
        #expect(CommitReadAhead(journal.reader()) == nil)
        first = nil
        let second = try Self.readAhead(journal.reader())
        #expect(try second.next()?.version == 1)
    }

    @Test func aStoreOpenedWithItFoldsWhatAPlainReadFolds() throws {
        let url = try JournalFixtures.journalURL()
        let configuration = Store.Configuration(fileURL: url, durability: .none, objectTypes: [SharedItem.self])
        do {
            let store = try Store(configuration: configuration)
            for batch in 0..<40 {
                try store.write {
                    for id in batch * 500..<(batch + 1) * 500 {
                        store.create(SharedItem.self, value: ["id": id, "name": "item \(id)", "score": id % 7])
                    }
                }
                try store.write { store.object(ofType: SharedItem.self, forPrimaryKey: batch * 3)!.score = -batch }
            }
            try store.write { store.delete(store.object(ofType: SharedItem.self, forPrimaryKey: 5)!) }
            try store.close()
        }
        var plain = StoreState()
        var reader = try Journal(contentsOf: url).reader()
        #expect(CommitReadAhead.worthwhile(for: reader) == (ProcessInfo.processInfo.activeProcessorCount > 1))
        try plain.fold(&reader)

        var withConfiguration = configuration
        withConfiguration.checkpoints.usesFile = false
        let reopened = try Store(configuration: withConfiguration)
        #expect(reopened.committedState().isContentEqual(plain))
        #expect(reopened.version == plain.version)
        #expect(reopened.objects(SharedItem.self).count == 19_999)
        #expect(reopened.object(ofType: SharedItem.self, forPrimaryKey: 6)?.score == -2)
    }

    /// Bad input through the read-ahead: a long journal whose last record
    /// is whole and checksummed but no commit still fails the open with the
    /// journal's typed error, naming the last good version.
    @Test func aStoreOverALongJournalWithAnUndecodableRecordFailsWithTheTypedError() throws {
        let (url, configuration) = try Self.longStore()
        let last = try Journal(contentsOf: url).lastVersion
        #expect(CommitReadAhead.worthwhile(for: try Journal(contentsOf: url).reader()))
        var writer = BinaryWriter()
        writer.varint(last + 1)
        var payload = writer.bytes
        payload += [UInt8](repeating: 0xEE, count: 40)
        var record = withUnsafeBytes(of: UInt32(payload.count).littleEndian) { Array($0) }
        let crc = payload.withUnsafeBytes { JournalFormat.checksum(length: UInt32(payload.count), payload: $0) }
        record += withUnsafeBytes(of: crc.littleEndian) { Array($0) } + payload
        try JournalFixtures.write(JournalFixtures.bytes(url) + record, to: url)

        #expect {
            _ = try Store(configuration: configuration)
        } throws: { error in
            guard case .journal(.damaged(_, let lastGood, _))? = error as? StoreError else { return false }
            return lastGood == last
        }
    }

    /// A create the fold rejects, read ahead: the read-ahead thread made
    /// its record and dropped the event's values (issue 31), and the error
    /// still names the event with its values.
    @Test func aRejectedCreateReadAheadIsReportedWithItsValues() throws {
        let (url, configuration) = try Self.longStore()
        var state = StoreState()
        var reader = try Journal(contentsOf: url).reader()
        try state.fold(&reader)
        // Object 7's values again under a new key: its primary key is taken.
        let table = try #require(state.tableIndex(named: "SharedItem"))
        let values = Array(try #require(state.object(table: table, key: ObjectKey(7))).values)
        let key = ObjectKey(state.tables[table].nextKey)
        do {
            let journal = try Journal(fileURL: url, durability: .none)
            try journal.append(Commit(version: state.version + 1, timestamp: Date(),
                                      events: [.create(table: table, key: key, values: values)]))
            try journal.close()
        }
        #expect(CommitReadAhead.worthwhile(for: try Journal(contentsOf: url).reader()))

        #expect {
            _ = try Store(configuration: configuration)
        } throws: { error in
            guard case .rejected(let rejection)? = error as? StoreError,
                  case .create(_, let rejectedKey, let rejectedValues)? = rejection.event else { return false }
            return rejectedKey == key && rejectedValues == values
        }
    }

    /// A create whose values stop short, read ahead: the thread decodes
    /// each create's values straight into a record (issue 31), and a value
    /// that does not decode still fails the open with the journal's typed
    /// error, after the values before it in the same create were decoded.
    @Test func aCreateWhoseValuesDoNotDecodeFailsTheOpenWithTheTypedError() throws {
        let (url, configuration) = try Self.longStore()
        let last = try Journal(contentsOf: url).lastVersion
        var writer = BinaryWriter()
        writer.varint(last + 1)
        writer.fixed64(Date().timeIntervalSinceReferenceDate.bitPattern)
        writer.byte(0)      // no label
        writer.varint(0)    // no metadata
        writer.varint(1)    // one event: a create of three values
        writer.target(3, table: 0, key: 1_000_000)
        writer.varint(3)
        EventCodec.encode(.int(7), into: &writer)
        EventCodec.encode(.string(String(repeating: "long enough to live on the heap ", count: 4)), into: &writer)
        writer.byte(6)      // a string...
        writer.varint(500)  // ...running past the end of the commit
        let payload = writer.bytes
        var record = withUnsafeBytes(of: UInt32(payload.count).littleEndian) { Array($0) }
        let crc = payload.withUnsafeBytes { JournalFormat.checksum(length: UInt32(payload.count), payload: $0) }
        record += withUnsafeBytes(of: crc.littleEndian) { Array($0) } + payload
        try JournalFixtures.write(JournalFixtures.bytes(url) + record, to: url)
        #expect(CommitReadAhead.worthwhile(for: try Journal(contentsOf: url).reader()))

        #expect {
            _ = try Store(configuration: configuration)
        } throws: { error in
            guard case .journal(.damaged(_, let lastGood, let reason))? = error as? StoreError else { return false }
            return lastGood == last && reason.contains("does not decode")
        }
    }

    /// The fold files a run of creates' secondary-index entries together
    /// (issue 31). Creates interleaved with sets of the indexed property
    /// and deletes in the same commits must leave the index exactly as
    /// filing each object at once does (a plain read's fold, which has no
    /// records made ahead and files each object).
    @Test func indexEntriesFiledARunAtATimeMatchFilingEachObject() throws {
        let (plain, reopened) = try Self.foldedBothWays(TeamMember.self) { store in
            for batch in 0..<20 {
                try store.write {
                    for id in batch * 1_000..<(batch + 1) * 1_000 {
                        let member = TeamMember()
                        member.id = id
                        member.name = "member \(id)"
                        member.team = "team \(id % 37)"
                        store.add(member)
                        // A set and a delete between creates: the run before
                        // them (hundreds of creates, each team's several times)
                        // is filed first.
                        if id % 500 == 3 { member.team = "moved \(id % 5)" }
                        if id % 1_000 == 7, let old = store.object(ofType: TeamMember.self, forPrimaryKey: id - 5) {
                            store.delete(old)
                        }
                    }
                }
            }
        }
        let state = reopened.committedState()
        // The invariants recompute every index from the records.
        #expect(state._invariantViolations().isEmpty)
        #expect(state.isContentEqual(plain))
        let table = try #require(state.tableIndex(named: "TeamMember"))
        let team = try #require(state.schema[table].properties.firstIndex { $0.name == "team" })
        let index = try #require(state.tables[table].secondaryIndexes[team])
        let plainIndex = try #require(plain.tables[table].secondaryIndexes[team])
        #expect(index.count == plainIndex.count)
        for (value, keys) in plainIndex { #expect(index[value]?.elements == keys.elements) }
        let moved = reopened.objects(TeamMember.self).filter(#Predicate { $0.team == "moved 3" })
        #expect(moved.count == 40)
        #expect(moved.count == reopened.objects(TeamMember.self).filter { $0.team == "moved 3" }.count)
    }

    /// A type of more than twelve properties keeps the kinds of the rest
    /// after its record's header word; its creates, decoded straight into
    /// records on the read-ahead thread, fold to what a plain read folds.
    @Test func aTypeOfManyPropertiesFoldsReadAheadAsAPlainReadFolds() throws {
        let (plain, reopened) = try Self.foldedBothWays(WideItem.self) { store in
            for batch in 0..<10 {
                try store.write {
                    for id in batch * 500..<(batch + 1) * 500 {
                        let item = WideItem()
                        item.id = id
                        item.p13 = "thirteenth \(id)"
                        item.p14 = id % 3 == 0 ? nil : Double(id) / 4
                        item.p15 = id.isMultiple(of: 2)
                        item.p7 = String(repeating: "x", count: id % 40)
                        store.add(item)
                    }
                }
            }
        }
        #expect(reopened.committedState().isContentEqual(plain))
        #expect(reopened.committedState()._invariantViolations().isEmpty)
        let item = try #require(reopened.object(ofType: WideItem.self, forPrimaryKey: 4_001))
        #expect(item.p13 == "thirteenth 4001")
        #expect(item.p14 == 4_001.0 / 4)
        #expect(item.p15 == false)
        #expect(item.p7.count == 4_001 % 40)
        #expect(reopened.objects(WideItem.self).filter { $0.p14 == nil }.count == 1_667)
    }
}

/// An indexed property, for the fold's filing of index entries a run at a time.
final class TeamMember: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(indexed: true) var team = ""
}
extension TeamMember: @unchecked Sendable {}

/// Fifteen properties: the kinds of the last three live after the
/// record's header word.
final class WideItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var p2 = 2
    @Persisted var p3 = "three"
    @Persisted var p4 = 4.0
    @Persisted var p5 = Date(timeIntervalSinceReferenceDate: 5)
    @Persisted var p6 = UUID(uuidString: "00000000-0000-0000-0000-000000000006")!
    @Persisted var p7 = ""
    @Persisted var p8: Int? = nil
    @Persisted var p9 = Data([9, 9])
    @Persisted var p10 = Decimal(10)
    @Persisted var p11 = true
    @Persisted var p12 = Float(12)
    @Persisted var p13 = ""
    @Persisted var p14: Double? = nil
    @Persisted var p15 = false
}
extension WideItem: @unchecked Sendable {}
