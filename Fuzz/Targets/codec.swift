// Fuzz target: the commit/event/value decoder (EventCodec.decodeCommit),
// fed one record payload.
//
// Checks: malformed bytes throw BinaryReader.Malformed (typed throws makes
// any other error impossible; traps, hangs and oversized allocations are
// what libFuzzer and ASan catch). A commit that decodes re-encodes to bytes
// that decode again and re-encode identically (bytes, not values, are
// compared, so NaN payloads do not count as differences). Folding the
// commit into an empty state either throws FoldError or yields a state
// whose invariants hold.
@_cdecl("LLVMFuzzerTestOneInput")
public func codecFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let commit: Commit
    do { commit = try EventCodec.decodeCommit(bytes) } catch { return 0 }

    let encoded = EventCodec.encode(commit)
    let again: Commit
    do { again = try EventCodec.decodeCommit(encoded) } catch {
        fuzzViolation("a decoded commit re-encodes to bytes that do not decode: \(error)")
    }
    guard EventCodec.encode(again) == encoded else { fuzzViolation("encoding is not stable across a round trip") }

    var start = StoreState()
    start.version = commit.version &- 1
    if let folded = try? start.applying(commit) {
        let problems = folded.state._invariantViolations()
        guard problems.isEmpty else { fuzzViolation("fold broke state invariants: \(problems)") }
    }
    return 0
}
