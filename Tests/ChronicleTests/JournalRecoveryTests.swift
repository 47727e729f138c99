import Foundation
import Testing
@testable import Chronicle

@Suite("Journal: torn tails, damage and foreign files")
struct JournalRecoveryTests {
    /// A journal of `count` commits; returns its URL, its commits and the
    /// offset where the last record starts.
    func makeJournal(count: Int = 4) throws -> (url: URL, commits: [Commit], lastStart: Int) {
        let url = try JournalFixtures.journalURL()
        let commits = (1...count).map { JournalFixtures.commit(UInt64($0), payload: 20 * $0, events: 2) }
        let journal = try Journal(fileURL: url, durability: .none)
        var lastStart = 0
        for commit in commits {
            lastStart = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as! Int
            try journal.append(commit)
        }
        try journal.close()
        return (url, commits, lastStart)
    }

    @Test func truncatingAnywhereInTheLastCommitKeepsTheEarlierOnes() throws {
        let (url, commits, lastStart) = try makeJournal()
        let original = try JournalFixtures.bytes(url)
        #expect(original.count - lastStart > 50)
        for cut in lastStart..<original.count {
            try JournalFixtures.write(Array(original[..<cut]), to: url)
            let journal = try Journal(fileURL: url, durability: .none)
            #expect(journal.lastVersion == 3, "cut at \(cut)")
            #expect(journal.discardedTailBytes == cut - lastStart, "cut at \(cut)")
            #expect(try JournalFixtures.bytes(url).count == lastStart, "cut at \(cut): the tail is truncated")
            #expect(try JournalFixtures.readAll(journal) == Array(commits.prefix(3)), "cut at \(cut)")
            let next = JournalFixtures.commit(4, payload: 7)
            try journal.append(next)
            try journal.close()
            #expect(try JournalFixtures.readAll(Journal(contentsOf: url)) == Array(commits.prefix(3)) + [next], "cut at \(cut)")
        }
    }

    @Test func readOnlyOpenIgnoresATornTailWithoutCuttingIt() throws {
        let (url, commits, lastStart) = try makeJournal()
        let original = try JournalFixtures.bytes(url)
        let torn = Array(original[..<(lastStart + 5)])
        try JournalFixtures.write(torn, to: url)
        let journal = try Journal(contentsOf: url)
        #expect(journal.lastVersion == 3)
        #expect(journal.discardedTailBytes == 5)
        #expect(Array(journal.commits()) == Array(commits.prefix(3)))
        #expect(try JournalFixtures.bytes(url) == torn)
    }

    @Test(arguments: ["zeros", "garbage", "zeros then garbage"])
    func trailingZerosOrGarbageAreCut(tail kind: String) throws {
        let (url, commits, _) = try makeJournal()
        let original = try JournalFixtures.bytes(url)
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<777).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let tail: [UInt8] = switch kind {
        case "zeros": Array(repeating: 0, count: 4096)
        case "garbage": garbage
        default: Array(repeating: 0, count: 100) + garbage
        }
        try JournalFixtures.write(original + tail, to: url)
        let journal = try Journal(fileURL: url)
        #expect(journal.lastVersion == 4)
        // Zeros alone are space reserved ahead, not a torn tail: cut, not counted.
        #expect(journal.discardedTailBytes == (kind == "zeros" ? 0 : tail.count))
        #expect(try JournalFixtures.bytes(url) == original)
        #expect(try JournalFixtures.readAll(journal) == commits)
    }

    @Test func aFlippedByteInAnEarlierCommitIsReportedAndNothingIsModified() throws {
        let (url, _, _) = try makeJournal()
        let original = try JournalFixtures.bytes(url)
        let journal = try Journal(contentsOf: url)
        let offsets = journal.core.state.withLock { $0.offsets }
        // Flip one byte in each place of commit 2: its length, checksum and payload.
        let start = offsets[1], end = offsets[2]
        for position in [start, start + 2, start + 5, start + 8, start + 20, end - 1] {
            var damaged = original
            damaged[position] ^= 0x40
            try JournalFixtures.write(damaged, to: url)
            for readOnly in [false, true] {
                let error = JournalFixtures.journalError {
                    readOnly ? try Journal(contentsOf: url) : try Journal(fileURL: url)
                }
                guard case .damaged(let offset, let lastGood, let reason)? = error else {
                    Issue.record("flipping byte \(position): expected .damaged, got \(String(describing: error))")
                    continue
                }
                #expect(offset == UInt64(start), "flipping byte \(position)")
                #expect(lastGood == 1, "flipping byte \(position)")
                #expect(!reason.isEmpty)
                #expect(try JournalFixtures.bytes(url) == damaged, "flipping byte \(position): the file is unchanged")
            }
        }
    }

    @Test func aRecordWithTheWrongVersionIsDamageEvenAtTheEnd() throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url, durability: .none)
        try journal.append(JournalFixtures.commit(1))
        try journal.close()
        // A whole, checksummed record that repeats version 1.
        let original = try JournalFixtures.bytes(url)
        let duplicate = try JournalFormat.encodeRecord(JournalFixtures.commit(1))
        try JournalFixtures.write(original + duplicate, to: url)
        let error = JournalFixtures.journalError { try Journal(fileURL: url) }
        guard case .damaged(let offset, 1, _)? = error else {
            Issue.record("expected .damaged after version 1, got \(String(describing: error))")
            return
        }
        #expect(offset == UInt64(original.count))
        #expect(try JournalFixtures.bytes(url) == original + duplicate)
    }

    @Test func aChecksummedRecordWhoseEventsDoNotDecodeIsDamageWhenRead() throws {
        let url = try JournalFixtures.journalURL()
        let journal = try Journal(fileURL: url, durability: .none)
        try journal.append(JournalFixtures.commit(1))
        try journal.close()
        // Version 2, then bytes that are no commit, framed with a matching checksum.
        var payload: [UInt8] = [2]
        payload += [UInt8](repeating: 0xEE, count: 40)
        var record = withUnsafeBytes(of: UInt32(payload.count).littleEndian) { Array($0) }
        let crc = payload.withUnsafeBytes { JournalFormat.checksum(length: UInt32(payload.count), payload: $0) }
        record += withUnsafeBytes(of: crc.littleEndian) { Array($0) } + payload
        let original = try JournalFixtures.bytes(url)
        try JournalFixtures.write(original + record, to: url)

        // Opening checks framing, checksums and versions only ...
        let reopened = try Journal(fileURL: url)
        #expect(reopened.lastVersion == 2)
        // ... reading the commit reports the damage with its offset ...
        let readError = JournalFixtures.journalError { try JournalFixtures.readAll(reopened) }
        guard case .damaged(let offset, 1, _)? = readError else {
            Issue.record("expected .damaged after version 1 when read, got \(String(describing: readError))")
            return
        }
        #expect(offset == UInt64(original.count))
        try reopened.close()
        // ... and so does opening a store, which folds it; nothing is modified.
        var configuration = Store.Configuration(fileURL: url)
        configuration.checkpoints = .inMemoryOnly
        #expect(throws: (any Error).self) { try Store(configuration: configuration) }
        #expect(try JournalFixtures.bytes(url) == original + record)
    }

    @Test func foreignFilesGetTheirOwnErrorsAndAreLeftAlone() throws {
        let directory = try JournalFixtures.temporaryDirectory()
        func check(_ bytes: [UInt8], _ name: String, expected: (URL) -> JournalError) throws {
            let url = directory.appendingPathComponent(name)
            try JournalFixtures.write(bytes, to: url)
            for readOnly in [false, true] {
                let error = JournalFixtures.journalError {
                    readOnly ? try Journal(contentsOf: url) : try Journal(fileURL: url)
                }
                #expect(error == expected(url), "\(name), read-only: \(readOnly)")
                #expect(try JournalFixtures.bytes(url) == bytes, "\(name) is untouched")
            }
        }
        var generator = SystemRandomNumberGenerator()
        let random = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try check(random, "random", expected: { .notAJournal($0) })
        try check(Array("hello, world\n".utf8), "text", expected: { .notAJournal($0) })
        try check([], "empty", expected: { .emptyFile($0) })

        var future = JournalFormat.makeHeader()
        future[8] = 3 // 2 is the compacted-journal header (base version)
        try check(future + [1, 2, 3], "future", expected: { _ in .unsupportedFormatVersion(found: 3, supported: 2) })

        var badHeader = JournalFormat.makeHeader()
        badHeader[15] ^= 1
        try check(badHeader, "bad header", expected: { _ in
            .damaged(offset: 0, lastGoodVersion: 0, reason: "the header checksum does not match")
        })
    }

    @Test func errorMessagesSayWhatToDo() {
        let url = URL(fileURLWithPath: "/tmp/x.journal")
        #expect(JournalError.locked(url).description.contains("Journal(contentsOf:)"))
        #expect(JournalError.damaged(offset: 99, lastGoodVersion: 7, reason: "r").description.contains("Versions 1...7 are intact"))
        #expect(JournalError.diskFull(path: "/x", errno: ENOSPC).description.contains("free disk space"))
        #expect(JournalError.unsupportedFormatVersion(found: 3, supported: 1).description.contains("newer Chronicle"))
    }
}
