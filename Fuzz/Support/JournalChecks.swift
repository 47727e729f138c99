// The checks of the journal fuzz targets (journal, journal-checksummed).
import Foundation

/// Opens `bytes` as a journal from memory, as `Journal(contentsOf:)` opens a
/// file, reads it back and folds it as `Store(configuration:)` does.
///
/// Checks: every failure is a JournalError or a StoreError (typed throws);
/// the commits read back are exactly 1...lastVersion, or reading stops with
/// `.damaged` at the first commit whose events do not decode; cutting the torn tail
/// (what a writable open does) leaves a journal that scans clean with the
/// same commits; a commit appended after the cut is found by the next scan;
/// a folded state satisfies its invariants.
func checkJournalBytes(_ bytes: [UInt8]) {
    let journal: Journal
    do { journal = try Journal(bytes: bytes) } catch { return }

    var reader = journal.reader()
    var commits: [Commit] = []
    do {
        while let commit = try reader.next() { commits.append(commit) }
    } catch {
        // Opening checks framing, checksums and versions only; a checksummed
        // record whose events do not decode is damage reported when read,
        // at that record, after the commits before it.
        guard case .damaged(_, let lastGood, _) = error, lastGood == UInt64(commits.count) else {
            fuzzViolation("a journal that opened failed to read back: \(error)")
        }
        return
    }
    guard commits.map(\.version) == (0..<UInt64(commits.count)).map({ $0 + 1 }),
          UInt64(commits.count) == journal.lastVersion else {
        fuzzViolation("read back \(commits.count) commits for lastVersion \(journal.lastVersion)")
    }

    let kept = Array(bytes[0..<(bytes.count - journal.discardedTailBytes)])
    let storage = InMemoryStorage(bytes: kept)
    let url = URL(fileURLWithPath: "/cut.journal")
    do {
        let scan = try JournalScan.scan(storage, url: url)
        guard scan.tornBytes == 0, scan.offsets.count == commits.count else {
            fuzzViolation("after cutting the torn tail: \(scan.tornBytes) torn bytes, \(scan.offsets.count) commits")
        }
        let core = JournalCore(storage: storage, offsets: scan.offsets, end: scan.end, hasFlusher: false)
        let next = Commit(version: journal.lastVersion + 1, timestamp: Date(timeIntervalSinceReferenceDate: 0),
                          label: "fuzz", events: [])
        _ = try core.write(next)
        let reopened = try JournalScan.scan(storage, url: url)
        guard reopened.offsets.count == commits.count + 1, reopened.tornBytes == 0 else {
            fuzzViolation("an appended commit was not found again")
        }
    } catch {
        fuzzViolation("the journal with its torn tail cut did not reopen or append: \(error)")
    }

    if let state = try? Store.fold(journal) {
        let problems = state._invariantViolations()
        guard problems.isEmpty else { fuzzViolation("fold broke state invariants: \(problems)") }
    }
}

/// `bytes` with the header checksum and every record checksum recomputed,
/// so mutated payloads get past the CRC to the decoder and the fold.
func withChecksumsFixed(_ input: [UInt8]) -> [UInt8] {
    var bytes = input
    guard bytes.count >= JournalFormat.headerSize else { return bytes }
    func store32(_ value: UInt32, at offset: Int) {
        for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
    }
    func load32(_ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * UInt32($1)) }
    }
    store32(CRC32C.checksum(Array(bytes[0..<28])), at: 28)
    var offset = JournalFormat.headerSize
    while bytes.count - offset >= JournalFormat.frameHeaderSize {
        let length = Int(load32(offset))
        let payloadStart = offset + JournalFormat.frameHeaderSize
        guard length > 0, length <= bytes.count - payloadStart else { break }
        let crc = bytes.withUnsafeBytes { raw in
            JournalFormat.checksum(length: UInt32(length), payload: UnsafeRawBufferPointer(rebasing: raw[payloadStart..<payloadStart + length]))
        }
        store32(crc, at: offset + 4)
        offset = payloadStart + length
    }
    return bytes
}
