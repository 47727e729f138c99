// Fuzz target: a checkpoint file decoded against its journal, as opening a
// store with a checkpoint file does (`CheckpointFile.decode`).
//
// Input: the journal's length (UInt32, little-endian), the journal's bytes,
// then the checkpoint file's bytes. The checkpoint's trailing CRC32C is
// recomputed first, so that mutations reach the decoder instead of stopping
// at a checksum mismatch: the decoder must withstand hostile contents with
// a valid checksum.
//
// Checks: decoding returns a state or a typed rejection, never crashes; a
// state it returns satisfies the fold's invariants.
@_cdecl("LLVMFuzzerTestOneInput")
public func checkpointFuzzTarget(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzInput(data, size)
    guard bytes.count >= 4 else { return 0 }
    let length = Int(bytes[0]) | Int(bytes[1]) << 8 | Int(bytes[2]) << 16 | Int(bytes[3]) << 24
    guard length <= bytes.count - 4, let journal = try? Journal(bytes: Array(bytes[4..<(4 + length)])) else { return 0 }
    var checkpoint = Array(bytes[(4 + length)...])
    if checkpoint.count >= 4 {
        let crc = CRC32C.checksum(Array(checkpoint[..<(checkpoint.count - 4)]))
        for index in 0..<4 { checkpoint[checkpoint.count - 4 + index] = UInt8(truncatingIfNeeded: crc >> (8 * UInt32(index))) }
    }
    if case .success(let state) = CheckpointFile.decode(checkpoint, journal: journal) {
        let problems = state._invariantViolations()
        guard problems.isEmpty else { fuzzViolation("a decoded checkpoint broke state invariants: \(problems)") }
    }
    return 0
}
