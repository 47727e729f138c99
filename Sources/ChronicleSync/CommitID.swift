import Chronicle
import Foundation

extension SyncProgress {
    /// The id a local commit is pushed under: a 128-bit FNV-1a hash of the
    /// device's id, the commit's local version and its encoding.
    ///
    /// Derived rather than drawn, so that a session can push a commit
    /// before its progress (which lists the ids) is on disk, and wait for
    /// that sync after the push instead of before: an app killed in between
    /// finds the same commit again and gives it the same id, which the
    /// server recognises (a retried push returns the version it first
    /// assigned, and a pull names the commit as this device's). A commit
    /// the device lost in a crash after pushing it (written, not yet
    /// durable) comes back from the server as any other device's would; a
    /// different commit later written at its version has another id.
    ///
    /// - Complexity: O(size of the commit's encoding).
    static func commitID(device: UUID, commit: Commit) -> UUID {
        let prime: UInt128 = 0x0000_0000_0100_0000_0000_0000_0000_013B
        var hash: UInt128 = 0x6C62_272E_07BB_0142_62B8_2175_6295_C58D
        func add(_ byte: UInt8) {
            hash ^= UInt128(byte)
            hash &*= prime
        }
        withUnsafeBytes(of: device.uuid) { for byte in $0 { add(byte) } }
        withUnsafeBytes(of: commit.version.littleEndian) { for byte in $0 { add(byte) } }
        for byte in commit.encoded() { add(byte) }
        let bytes = withUnsafeBytes(of: hash.littleEndian) { Array($0) }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
