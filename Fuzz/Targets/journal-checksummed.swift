// fuzz-corpus: journal
// Fuzz target: like `journal`, but the header and record checksums are
// recomputed before opening, so mutated record payloads reach the commit
// decoder and the fold instead of stopping at a checksum mismatch (where
// almost every random mutation of `journal` ends).
@_cdecl("LLVMFuzzerTestOneInput")
public func journalChecksummedFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    checkJournalBytes(withChecksumsFixed(fuzzInput(data, size)))
    return 0
}
