import Foundation
import Testing
@testable import Chronicle

/// Journals to open with a trusted prefix, shared by the prefix tests.
enum PrefixFixtures {
    /// A closed journal file of `count` commits.
    static func makeJournal(count: Int = 10, name: String = #function) throws -> (url: URL, commits: [Commit]) {
        let url = try JournalFixtures.journalURL(name)
        let commits = (1...count).map { JournalFixtures.commit(UInt64($0), payload: 10 + 7 * $0, events: 1 + $0 % 3) }
        let journal = try Journal(fileURL: url, durability: .none)
        for commit in commits { try journal.append(commit) }
        try journal.close()
        return (url, commits)
    }

    /// Where each record of the journal at `url` starts, from a full scan.
    static func offsets(_ url: URL) throws -> [Int] {
        try Journal(contentsOf: url).core.state.withLock { $0.offsets }
    }

    /// The prefix through `version` of the journal at `url`, made by a full open.
    static func prefix(_ url: URL, through version: UInt64) throws -> JournalPrefix {
        try #require(try Journal(contentsOf: url).prefix(through: version))
    }
}

@Suite("Journal: opening trusting a checkpoint's prefix")
struct JournalPrefixTests {
    @Test(arguments: [1, 6, 10] as [UInt64])
    func aTrustedOpenReadsExactlyAsAFullOpen(through version: UInt64) throws {
        let (url, commits) = try PrefixFixtures.makeJournal()
        let prefix = try PrefixFixtures.prefix(url, through: version)
        let full = try Journal(contentsOf: url)
        #expect(full.trustedPrefixVersion == nil)
        for readOnly in [true, false] {
            let journal = readOnly ? try Journal(contentsOf: url, trusting: prefix)
                                   : try Journal(fileURL: url, durability: .none, trusting: prefix)
            #expect(journal.trustedPrefixVersion == version)
            #expect(journal.lastVersion == 10)
            #expect(journal.discardedTailBytes == 0)
            #expect(journal.core.unscannedVersions == version)
            // The tail, and the trusted record's own prefix, are read without touching the prefix.
            #expect(try JournalFixtures.readAll(journal, from: version + 1) == Array(commits[Int(version)...]))
            #expect(try journal.prefix(through: version) == prefix)
            #expect(journal.core.unscannedVersions == version)
            for from in 0...11 as ClosedRange<UInt64> {
                #expect(try JournalFixtures.readAll(journal, from: from) == JournalFixtures.readAll(full, from: from), "from \(from)")
            }
            #expect(journal.core.unscannedVersions == 0)
            #expect(journal.core.state.withLock { $0.offsets } == full.core.state.withLock { $0.offsets })
            try journal.close()
        }
    }

    @Test func prefixThroughRoundTrips() throws {
        let (url, _) = try PrefixFixtures.makeJournal()
        let offsets = try PrefixFixtures.offsets(url)
        let bytes = try JournalFixtures.bytes(url)
        let full = try Journal(contentsOf: url)
        #expect(try full.prefix(through: 0) == nil)
        #expect(try full.prefix(through: 11) == nil)
        for version in 1...10 as ClosedRange<UInt64> {
            let prefix = try #require(try full.prefix(through: version))
            let offset = offsets[Int(version) - 1]
            #expect(prefix == JournalPrefix(fileID: full.fileIdentifier, version: version, recordOffset: offset,
                                            recordChecksum: JournalFormat.littleEndian32(bytes, at: offset + 4)))
            let trusted = try Journal(contentsOf: url, trusting: prefix)
            #expect(trusted.trustedPrefixVersion == version)
            // Every version's prefix, asked before and after the trusted one.
            for other in [10, version, 1] as [UInt64] {
                #expect(try trusted.prefix(through: other) == full.prefix(through: other), "\(version), \(other)")
            }
        }
    }

    @Test func aTrustedOpenOfAnInMemoryCopyMatchesTheFile() throws {
        let (url, commits) = try PrefixFixtures.makeJournal()
        let prefix = try PrefixFixtures.prefix(url, through: 4)
        let journal = try Journal(bytes: JournalFixtures.bytes(url), trusting: prefix)
        #expect(journal.trustedPrefixVersion == 4)
        #expect(try JournalFixtures.readAll(journal) == commits)
    }

    /// Ways a prefix can fail to fit the file.
    enum Misfit: String, CaseIterable, CustomTestStringConvertible {
        case otherFileID, otherChecksum, offsetBeyondTheFile, offsetPastTheLastFrame, offsetNotAtARecord,
             offsetInTheHeader, negativeOffset, laterVersion, earlierVersion, versionZero

        var testDescription: String { rawValue }

        func apply(to prefix: JournalPrefix, fileSize: Int) -> JournalPrefix {
            var wrong = prefix
            switch self {
            case .otherFileID: wrong.fileID = UUID()
            case .otherChecksum: wrong.recordChecksum ^= 1
            case .offsetBeyondTheFile: wrong.recordOffset = fileSize + 100
            case .offsetPastTheLastFrame: wrong.recordOffset = fileSize - 4
            case .offsetNotAtARecord: wrong.recordOffset += 1
            case .offsetInTheHeader: wrong.recordOffset = 4
            case .negativeOffset: wrong.recordOffset = -8
            case .laterVersion: wrong.version += 1
            case .earlierVersion: wrong.version -= 1
            case .versionZero: wrong.version = 0
            }
            return wrong
        }
    }

    @Test(arguments: Misfit.allCases)
    func aPrefixThatDoesNotFitFallsBackToTheFullScan(_ misfit: Misfit) throws {
        let (url, commits) = try PrefixFixtures.makeJournal()
        let original = try JournalFixtures.bytes(url)
        let wrong = misfit.apply(to: try PrefixFixtures.prefix(url, through: 6), fileSize: original.count)
        let readOnly = try Journal(contentsOf: url, trusting: wrong)
        #expect(readOnly.trustedPrefixVersion == nil)
        #expect(readOnly.core.unscannedVersions == 0)
        #expect(readOnly.lastVersion == 10)
        #expect(try JournalFixtures.readAll(readOnly) == commits)
        let writable = try Journal(fileURL: url, durability: .none, trusting: wrong)
        #expect(writable.trustedPrefixVersion == nil)
        #expect(try JournalFixtures.readAll(writable) == commits)
        try writable.close()
        // The full scan it fell back to finds damage inside the prefix at open.
        let offsets = try PrefixFixtures.offsets(url)
        var damaged = original
        damaged[offsets[2] + 12] ^= 0x20
        try JournalFixtures.write(damaged, to: url)
        let error = JournalFixtures.journalError { try Journal(contentsOf: url, trusting: wrong) }
        #expect(error.flatMap { if case .damaged(let offset, 2, _) = $0 { offset } else { nil } } == UInt64(offsets[2]),
                "\(String(describing: error))")
    }

    /// A compacted journal, with the file id of the prefix, whose torn tail
    /// holds a frame with the prefix's checksum and version, which is at most
    /// the base version: only the base version rules it out.
    @Test(arguments: [3, 5] as [UInt64])
    func aPrefixAtOrBeforeTheBaseVersionFallsBackToTheFullScan(version: UInt64) throws {
        let fileID = UUID()
        let base: UInt64 = 5
        var bytes = JournalFormat.makeHeader(fileID: fileID, baseVersion: base)
        let snapshot = JournalFixtures.commit(base + 1)
        bytes += try JournalFormat.encodeRecord(snapshot)
        let tailStart = bytes.count
        var stale = try JournalFormat.encodeRecord(JournalFixtures.commit(version))
        stale[4] ^= 0xFF  // its checksum no longer matches: a torn tail to a full scan
        bytes += stale
        let prefix = JournalPrefix(fileID: fileID, version: version, recordOffset: tailStart,
                                   recordChecksum: JournalFormat.littleEndian32(stale, at: 4))
        let journal = try Journal(bytes: bytes, trusting: prefix)
        #expect(journal.trustedPrefixVersion == nil)
        #expect(journal.baseVersion == base)
        #expect(journal.lastVersion == base + 1)
        #expect(journal.discardedTailBytes == stale.count)
        #expect(try JournalFixtures.readAll(journal) == [snapshot])
    }

    /// A frame that claims a version more records than the bytes before it
    /// could hold is refused, however well it matches otherwise; claiming
    /// one that fits, the same frame is trusted (its payload is not checked
    /// at open) and found damaged when history is read.
    @Test func aPrefixClaimingMoreVersionsThanFitBeforeItFallsBackToTheFullScan() throws {
        func journal(claiming version: UInt64) throws -> (bytes: [UInt8], prefix: JournalPrefix, frame: Int) {
            let fileID = UUID()
            var bytes = JournalFormat.makeHeader(fileID: fileID)
            bytes += try JournalFormat.encodeRecord(JournalFixtures.commit(1))
            let frame = bytes.count
            var claim = try JournalFormat.encodeRecord(JournalFixtures.commit(version))
            claim[4] ^= 0xFF  // a torn tail to a full scan
            bytes += claim
            return (bytes, JournalPrefix(fileID: fileID, version: version, recordOffset: frame,
                                         recordChecksum: JournalFormat.littleEndian32(claim, at: 4)), frame)
        }
        let far = try journal(claiming: 1_000)
        let refused = try Journal(bytes: far.bytes, trusting: far.prefix)
        #expect(refused.trustedPrefixVersion == nil)
        #expect(refused.lastVersion == 1)
        #expect(refused.discardedTailBytes == far.bytes.count - far.frame)

        let near = try journal(claiming: 2)
        let trusted = try Journal(bytes: near.bytes, trusting: near.prefix)
        #expect(trusted.trustedPrefixVersion == 2)
        #expect(trusted.lastVersion == 2)
        let error = JournalFixtures.journalError { try JournalFixtures.readAll(trusted) }
        #expect(error.flatMap { if case .damaged(let offset, 1, _) = $0 { offset } else { nil } } == UInt64(near.frame),
                "\(String(describing: error))")
    }
}
