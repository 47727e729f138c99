// fuzz-sources: Sources/ChronicleSync/SyncWire.swift
// Fuzz target: the sync server's request decoding (SyncWire.decodeCheckedPush,
// what chronicle-server runs on every push body), fed one request body.
//
// Checks: hostile bytes throw SyncWireError (typed throws makes any other
// error impossible; traps, hangs and oversized allocations are what
// libFuzzer and ASan catch). A body that decodes re-encodes to bytes that
// decode to the same push, and its commits carry versions base + 1, base + 2, ….
@_cdecl("LLVMFuzzerTestOneInput")
public func syncPushFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    let push: SyncWire.Push
    do { push = try SyncWire.decodeCheckedPush(bytes) } catch { return 0 }
    let encoded = SyncWire.encode(push)
    guard let again = try? SyncWire.decodeCheckedPush(encoded), again == push else {
        fuzzViolation("a decoded push re-encodes to a different push")
    }
    for (offset, wire) in push.commits.enumerated() {
        guard let commit = try? Commit(encoded: wire.payload), commit.version == push.base + UInt64(offset) + 1 else {
            fuzzViolation("an accepted push holds a commit out of place")
        }
    }
    return 0
}
