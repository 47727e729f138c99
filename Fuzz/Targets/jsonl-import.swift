// Fuzz target: JSON Lines import (Journal.importJSONLines), fed whole files,
// into an in-memory journal.
//
// Checks: malformed input throws JSONLinesError (typed throws rules out
// anything else; .unreadable cannot happen, as nothing is read from disk),
// never a trap, a hang or an allocation the input does not justify. Cutting
// the input into small chunks (a size taken from its length) gives exactly
// what one chunk gives: the same error or the same commits, so a line split
// across reads is read as one. The lines before a bad one stay appended and
// read back as versions 1...lastVersion. A successful import round-trips
// the way ReplayJSONLinesTests and CLITests check it: the journal exported
// as JSON Lines and imported again gives identical commits, byte for byte,
// and exporting that copy gives the identical text. Folding the imported
// journal (as a Store would) throws StoreError or gives a state whose
// invariants hold.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func jsonlImportFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let whole = importJSONLinesForFuzzing(bytes, chunkSize: max(bytes.count, 1))
    let chunked = importJSONLinesForFuzzing(bytes, chunkSize: 1 + bytes.count % 61)
    guard whole.outcome == chunked.outcome, whole.commits == chunked.commits else {
        fuzzViolation("one chunk gave \(whole.outcome), chunks of \(1 + bytes.count % 61) bytes gave \(chunked.outcome)")
    }
    if case .failure(.unreadable(let reason)) = whole.outcome { fuzzViolation("unreadable without a file: \(reason)") }
    guard case .success(let count) = whole.outcome else { return 0 }
    guard count == whole.commits.count else { fuzzViolation("import said \(count) commits, the journal has \(whole.commits.count)") }

    // Export, import the export, export again.
    var text = ""
    do { try whole.journal.exportJSONLines { text += $0 } } catch {
        fuzzViolation("an imported journal does not export: \(error)")
    }
    let again = importJSONLinesForFuzzing(Array(text.utf8), chunkSize: max(text.utf8.count, 1))
    guard again.outcome == .success(count), again.commits == whole.commits else {
        fuzzViolation("the export of an import did not import to the same commits: \(again.outcome)")
    }
    var textAgain = ""
    do { try again.journal.exportJSONLines { textAgain += $0 } } catch {
        fuzzViolation("a re-imported journal does not export: \(error)")
    }
    guard textAgain == text else { fuzzViolation("exporting the re-imported journal gave other text") }

    if let state = try? Store.fold(whole.journal) {
        let problems = state._invariantViolations()
        guard problems.isEmpty else { fuzzViolation("fold broke state invariants: \(problems)") }
    }
    return 0
}

/// What importing `bytes` into a new in-memory journal did: the outcome,
/// and the commits the journal then holds, each as its exact encoding (NaN
/// payloads and all).
func importJSONLinesForFuzzing(_ bytes: [UInt8], chunkSize: Int)
    -> (outcome: Result<Int, JSONLinesError>, journal: Journal, commits: [[UInt8]]) {
    let journal = Journal.inMemory(durability: .none)
    var offset = 0
    let outcome = Result { () throws(JSONLinesError) -> Int in
        try journal.importJSONLines { () -> Data? in
            guard offset < bytes.count else { return nil }
            let end = min(offset + chunkSize, bytes.count)
            defer { offset = end }
            return Data(bytes[offset..<end])
        }
    }
    var commits: [[UInt8]] = []
    var reader = journal.reader()
    do {
        while let commit = try reader.next() { commits.append(EventCodec.encode(commit)) }
    } catch {
        fuzzViolation("an imported journal does not read back: \(error)")
    }
    guard UInt64(commits.count) == journal.lastVersion else {
        fuzzViolation("read back \(commits.count) commits for lastVersion \(journal.lastVersion)")
    }
    return (outcome, journal, commits)
}
