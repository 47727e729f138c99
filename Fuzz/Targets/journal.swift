// Fuzz target: opening a journal from whole-file bytes exactly as they would
// be on disk (header, framing, checksums, torn-tail rule, records), reading
// it back, and folding it as Store(configuration:) does.
// See checkJournalBytes (Fuzz/Support/JournalChecks.swift) for the checks.
@_cdecl("LLVMFuzzerTestOneInput")
public func journalFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkJournalBytes(fuzzInput(data, size))
    return 0
}
