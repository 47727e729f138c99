import Foundation
import Testing
@testable import Chronicle

@Suite("Journal: a trusted prefix's damage, torn tails, appends and concurrent readers")
struct JournalPrefixDamageTests {
    /// The offset and last good version of a `.damaged` error, `nil` for anything else.
    func damage(_ error: JournalError?) -> (offset: UInt64, lastGood: UInt64)? {
        if case .damaged(let offset, let lastGood, _)? = error { (offset, lastGood) } else { nil }
    }

    /// Flips a payload byte of record `version` (1-based) in the file at `url`.
    func damageRecord(_ version: Int, of url: URL, offsets: [Int]) throws {
        var bytes = try JournalFixtures.bytes(url)
        bytes[offsets[version - 1] + JournalFormat.frameHeaderSize + 3] ^= 0x10
        try JournalFixtures.write(bytes, to: url)
    }

    /// Damage to record 3, inside the prefix through 6, or to record 6 itself,
    /// whose payload the open does not check either.
    @Test(arguments: [3, 6])
    func damageInsideTheTrustedPrefixIsThrownByTheReadThatNeedsIt(record: Int) throws {
        let (url, commits) = try PrefixFixtures.makeJournal()
        let prefix = try PrefixFixtures.prefix(url, through: 6)
        let tailPrefix = try PrefixFixtures.prefix(url, through: 8)
        let offsets = try PrefixFixtures.offsets(url)
        try damageRecord(record, of: url, offsets: offsets)
        let expected = (offset: UInt64(offsets[record - 1]), lastGood: UInt64(record - 1))

        let journal = try Journal(fileURL: url, durability: .none, trusting: prefix)
        #expect(journal.trustedPrefixVersion == 6)
        #expect(journal.lastVersion == 10)
        #expect(try JournalFixtures.readAll(journal, from: 7) == Array(commits[6...]))
        for from in [1, 2, 6] as [UInt64] {
            let found = damage(JournalFixtures.journalError { try JournalFixtures.readAll(journal, from: from) })
            #expect(found?.offset == expected.offset && found?.lastGood == expected.lastGood, "from \(from): \(String(describing: found))")
        }
        var iterator = journal.commits().makeIterator()
        #expect(iterator.next() == nil)
        #expect(damage(iterator.error)?.offset == expected.offset)
        #expect(damage(JournalFixtures.journalError { try journal.prefix(through: 2) })?.offset == expected.offset)
        #expect(try journal.prefix(through: 8) == tailPrefix)

        // Appends go on, and the tail stays readable.
        let next = JournalFixtures.commit(11, payload: 5)
        try journal.append(next)
        #expect(try JournalFixtures.readAll(journal, from: 7) == Array(commits[6...]) + [next])
        try journal.close()

        // Without the prefix, opening throws as it always did.
        for readOnly in [true, false] {
            let error = JournalFixtures.journalError {
                readOnly ? try Journal(contentsOf: url) : try Journal(fileURL: url, durability: .none)
            }
            #expect(damage(error)?.offset == expected.offset, "\(String(describing: error))")
        }
        let again = try Journal(contentsOf: url, trusting: prefix)
        #expect(again.trustedPrefixVersion == 6)
        #expect(try JournalFixtures.readAll(again, from: 7) == Array(commits[6...]) + [next])
    }

    /// A last record whose payload is damaged is a torn tail to a full scan,
    /// and is cut; a checkpoint vouched for it, so a trusted open keeps it
    /// and reports the damage when history reads it.
    @Test func aDamagedTrustedLastRecordIsDamageNotATornTail() throws {
        let (url, commits) = try PrefixFixtures.makeJournal()
        let prefix = try PrefixFixtures.prefix(url, through: 10)
        let offsets = try PrefixFixtures.offsets(url)
        try damageRecord(10, of: url, offsets: offsets)
        let trusted = try Journal(contentsOf: url, trusting: prefix)
        #expect(trusted.lastVersion == 10)
        #expect(trusted.discardedTailBytes == 0)
        #expect(damage(JournalFixtures.journalError { try JournalFixtures.readAll(trusted) })?.offset == UInt64(offsets[9]))
        let full = try Journal(contentsOf: url)
        #expect(full.lastVersion == 9)
        #expect(try JournalFixtures.readAll(full) == Array(commits.prefix(9)))
    }

    /// A crafted frame inside record 2's payload fits a prefix through
    /// version 5, and record 6 follows record 2: the open trusts it, and the
    /// scan of the prefix finds versions 1...2 where 1...5 belong.
    @Test func aPrefixWhoseRecordsHoldOtherVersionsIsDamage() throws {
        let fileID = UUID()
        var bytes = JournalFormat.makeHeader(fileID: fileID)
        let first = JournalFixtures.commit(1, payload: 100)
        bytes += try JournalFormat.encodeRecord(first)
        let fake: [UInt8] = [8, 0, 0, 0] + Array("ABCD".utf8) + [5] + Array("yyyyyyy".utf8)
        let text = "xxxx" + String(decoding: fake, as: UTF8.self)
        let second = Commit(version: 2, timestamp: Date(timeIntervalSinceReferenceDate: 2), label: nil, metadata: [:],
                            events: [.set(table: 0, key: ObjectKey(1), property: 0, value: .string(text))])
        let record = try JournalFormat.encodeRecord(second)
        #expect(Array(record.suffix(fake.count)) == fake)  // the string ends the record
        let frame = bytes.count + record.count - fake.count
        bytes += record
        let sixth = JournalFixtures.commit(6)
        bytes += try JournalFormat.encodeRecord(sixth)
        let prefix = JournalPrefix(fileID: fileID, version: 5, recordOffset: frame,
                                   recordChecksum: JournalFormat.littleEndian32(Array("ABCD".utf8), at: 0))

        let journal = try Journal(bytes: bytes, trusting: prefix)
        #expect(journal.trustedPrefixVersion == 5)
        #expect(journal.lastVersion == 6)
        #expect(try JournalFixtures.readAll(journal, from: 6) == [sixth])
        let found = damage(JournalFixtures.journalError { try JournalFixtures.readAll(journal) })
        #expect(found?.offset == UInt64(frame) && found?.lastGood == 1, "\(String(describing: found))")
        #expect(journal.lastVersion == 6)
        #expect(try JournalFixtures.readAll(journal, from: 6) == [sixth])
        #expect(damage(JournalFixtures.journalError { try Journal(bytes: bytes) })?.lastGood == 2)
    }

    @Test(arguments: ["cut", "garbage"])
    func aTornTailAfterThePrefixIsCut(kind: String) throws {
        let (url, commits) = try PrefixFixtures.makeJournal()
        let prefix = try PrefixFixtures.prefix(url, through: 6)
        let offsets = try PrefixFixtures.offsets(url)
        let original = try JournalFixtures.bytes(url)
        let torn = kind == "cut" ? Array(original[..<(offsets[9] + 11)])
                                 : original + [0x05, 0, 0, 0, 0xAB, 0xCD, 0xEF, 0x01, 0x7F]
        try JournalFixtures.write(torn, to: url)
        let kept = kind == "cut" ? 9 : 10
        let end = kind == "cut" ? offsets[9] : original.count

        let journal = try Journal(fileURL: url, durability: .full, trusting: prefix)
        #expect(journal.trustedPrefixVersion == 6)
        #expect(journal.lastVersion == UInt64(kept))
        #expect(journal.discardedTailBytes == torn.count - end)
        #expect(try JournalFixtures.bytes(url).count == end)
        let added = (kept + 1...kept + 3).map { JournalFixtures.commit(UInt64($0), payload: 3 * $0) }
        for commit in added { try journal.append(commit) }
        #expect(journal.core.unscannedVersions == 6)
        try journal.close()

        let expected = Array(commits.prefix(kept)) + added
        #expect(try JournalFixtures.readAll(Journal(contentsOf: url)) == expected)
        let reopened = try Journal(contentsOf: url, trusting: prefix)
        #expect(reopened.trustedPrefixVersion == 6)
        #expect(try JournalFixtures.readAll(reopened) == expected)
    }

    /// After the prefix, a bad record followed by a valid one is damage, as
    /// in a full scan, and the file is left as it was.
    @Test func damageAfterThePrefixFailsTheOpen() throws {
        let (url, _) = try PrefixFixtures.makeJournal()
        let prefix = try PrefixFixtures.prefix(url, through: 6)
        let offsets = try PrefixFixtures.offsets(url)
        try damageRecord(8, of: url, offsets: offsets)
        let damaged = try JournalFixtures.bytes(url)
        let error = JournalFixtures.journalError { try Journal(fileURL: url, durability: .none, trusting: prefix) }
        let found = damage(error)
        #expect(found?.offset == UInt64(offsets[7]) && found?.lastGood == 7, "\(String(describing: error))")
        #expect(try JournalFixtures.bytes(url) == damaged)
    }

    /// Versions go on from the trusted prefix, with every durability, and
    /// appending never scans it.
    @Test(arguments: [Durability.full, .batched(maxDelay: .milliseconds(2), maxCommits: 4), .none])
    func appendsAfterATrustedOpenLeaveThePrefixUnscanned(durability: Durability) throws {
        let (url, commits) = try PrefixFixtures.makeJournal()
        let prefix = try PrefixFixtures.prefix(url, through: 10)
        let journal = try Journal(fileURL: url, durability: durability, trusting: prefix)
        #expect(throws: JournalError.versionMismatch(expected: 11, found: 3)) { try journal.append(JournalFixtures.commit(3)) }
        let added = (11...30).map { JournalFixtures.commit(UInt64($0)) }
        for commit in added { try journal.append(commit) }
        try journal.sync()
        #expect(journal.lastVersion == 30)
        #expect(journal.core.unscannedVersions == 10)
        #expect(try journal.prefix(through: 30) != nil)
        #expect(journal.core.unscannedVersions == 10)
        try journal.close()
        #expect(try JournalFixtures.readAll(Journal(contentsOf: url)) == commits + added)
        #expect(try JournalFixtures.readAll(Journal(contentsOf: url, trusting: prefix)) == commits + added)
    }

    /// Readers that all need the prefix at once get the same commits, while
    /// a writer appends.
    @Test func concurrentReadersOfATrustedPrefixAgree() async throws {
        for _ in 0..<5 {
            let (url, commits) = try PrefixFixtures.makeJournal(count: 300)
            let prefix = try PrefixFixtures.prefix(url, through: 250)
            let journal = try Journal(fileURL: url, durability: .none, trusting: prefix)
            #expect(journal.trustedPrefixVersion == 250)
            let last = journal.lastVersion
            let results = try await withThrowingTaskGroup(of: [Commit].self) { group in
                for _ in 0..<8 {
                    group.addTask { try JournalFixtures.readAll(journal) }
                }
                group.addTask {
                    for version in last + 1...last + 20 { try journal.append(JournalFixtures.commit(version)) }
                    return []
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let reads = results.filter { !$0.isEmpty }
            #expect(reads.count == 8)
            for read in reads {
                #expect(Array(read.prefix(300)) == commits)
                #expect(read.map(\.version) == Array(1...UInt64(read.count)))
            }
            #expect(journal.core.unscannedVersions == 0)
            try journal.close()
        }
    }
}
