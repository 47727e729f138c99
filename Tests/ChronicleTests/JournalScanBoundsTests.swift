import Foundation
import Testing
@testable import Chronicle

/// Opening a journal costs time linear in its size, whatever its bytes.
///
/// Regression for a finding of this suite: after a bad frame, the scan looks
/// for any whole, checksummed record further on (damage) versus none (a torn
/// tail). It used to checksum every candidate's payload separately, which is
/// quadratic: a crafted 1 MiB file kept `Journal(fileURL:)` busy for 10 s
/// (minutes with longer length fields), and a torn tail of 10 MB of random
/// bytes (a big `Data` cut by a crash) about 30 s. It now takes one pass
/// with CRC combination.
@Suite("Journal: bounded scan of what follows a bad frame")
struct JournalScanBoundsTests {
    /// The previous algorithm, as the reference: checksum every plausible candidate.
    static func bruteForce(_ bytes: [UInt8], after start: Int) -> Int? {
        func load32(_ i: Int) -> Int { Int(bytes[i]) | Int(bytes[i + 1]) << 8 | Int(bytes[i + 2]) << 16 | Int(bytes[i + 3]) << 24 }
        var candidate = start + 1
        while bytes.count - candidate >= 8 {
            let length = load32(candidate)
            if length > 0, length <= bytes.count - candidate - 8 {
                let crc = bytes.withUnsafeBytes { raw in
                    JournalFormat.checksum(length: UInt32(length),
                                           payload: UnsafeRawBufferPointer(rebasing: raw[(candidate + 8)..<(candidate + 8 + length)]))
                }
                if crc == UInt32(load32(candidate + 4)) { return candidate }
            }
            candidate += 1
        }
        return nil
    }

    static func search(_ bytes: [UInt8], after start: Int, pendingLimit: Int = RecordCursor.pendingLimit) throws -> RecordCursor.FollowingRecord {
        var cursor = RecordCursor(storage: InMemoryStorage(bytes: bytes), from: start, to: bytes.count)
        return try cursor.validRecord(after: start, pendingLimit: pendingLimit)
    }

    @Test func theOnePassSearchAgreesWithChecksummingEachCandidate() throws {
        var random = SplitMix64(seed: 0xC0FFEE)
        var found = 0
        for round in 0..<400 {
            // Small byte values make many plausible length fields.
            let count = Int.random(in: 16...3000, using: &random)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...(round % 2 == 0 ? 3 : 255), using: &random) }
            if round % 3 == 0 {
                // Plant a real record somewhere (sometimes cut short).
                let record = try JournalFormat.encodeRecord(JournalFixtures.commit(UInt64(round + 1), payload: round % 50))
                let at = Int.random(in: 1..<max(2, count), using: &random)
                let kept = round % 6 == 0 ? record.count / 2 : record.count
                bytes.replaceSubrange(at..<min(count, at + kept), with: record.prefix(min(kept, count - at)))
            }
            let start = 0
            let expected = Self.bruteForce(bytes, after: start)
            let actual = try Self.search(bytes, after: start)
            if let expected {
                found += 1
                // The one-pass search may settle on another valid candidate first; any valid one is damage.
                guard case .found(let at) = actual else {
                    Issue.record("round \(round): expected a record at \(expected), got \(actual)")
                    continue
                }
                #expect(Self.bruteForce(Array(bytes[at...]), after: -1) == 0, "round \(round): \(at) is not a valid record")
            } else {
                #expect(actual == .none, "round \(round)")
            }
        }
        #expect(found > 20, "too few planted records survived to exercise .found")
    }

    /// Every fourth byte starts a plausible 256 KiB record: 64 Ki candidates,
    /// 16 GiB of checksumming the old way (minutes; now one pass).
    @Test func aCraftedTailOpensInLinearTime() throws {
        var bytes = JournalFormat.makeHeader()
        while bytes.count < 512 * 1024 { bytes += [0x00, 0x00, 0x04, 0x00] }
        // Work, not wall time (sanitizers and busy machines stretch time):
        // the bytes read, which the old search made ~30,000 times the file.
        let storage = ResourceBoundsTests.MeasuringStorage(bytes)
        let scan = try JournalScan.scan(storage, url: URL(fileURLWithPath: "/crafted"))
        #expect(scan.offsets.isEmpty)
        #expect(scan.tornBytes == bytes.count - JournalFormat.headerSize)
        #expect(storage.totalRead.withLock { $0 } < 3 * bytes.count, "read \(storage.totalRead.withLock { $0 }) bytes")
    }

    /// A torn tail of random bytes, the size of a big cut-short commit.
    @Test func aRandomTornTailOfFourMegabytesOpensQuickly() throws {
        let url = try JournalFixtures.journalURL()
        do {
            let journal = try Journal(fileURL: url)
            for version in 1...3 { try journal.append(JournalFixtures.commit(UInt64(version))) }
        }
        var bytes = try JournalFixtures.bytes(url)
        let intact = bytes.count
        var random = SplitMix64(seed: 42)
        bytes += (0..<(4 << 20)).map { _ in UInt8.random(in: 0...255, using: &random) }
        try JournalFixtures.write(bytes, to: url)
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            let journal = try Journal(fileURL: url)
            #expect(journal.lastVersion == 3)
            #expect(journal.discardedTailBytes == 4 << 20)
        }
        #expect(try JournalFixtures.bytes(url).count == intact)
        #expect(elapsed < .seconds(10), "opening took \(elapsed)")
    }

    /// Past the pending limit the search cannot rule out valid data, so the
    /// open reports damage and cuts nothing.
    @Test func tooManyPendingCandidatesIsUndecidedNeverCut() throws {
        var bytes: [UInt8] = []
        while bytes.count < 64 * 1024 { bytes += [0x00, 0x80, 0x00, 0x00] }  // 32 KiB records everywhere
        #expect(try Self.search(bytes, after: 0, pendingLimit: 1000) == .undecided(pendingLimit: 1000))
        #expect(try Self.search(bytes, after: 0) == .none)
    }

    @Test func crcCombinationMatchesChecksummingTheWhole() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<200 {
            let a = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let b = (0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(CRC32C.combine(CRC32C.checksum(a), CRC32C.checksum(b), lengthB: b.count) == CRC32C.checksum(a + b))
        }
    }
}
