import Foundation

/// How far a device has synced, kept next to its journal (see
/// `SyncSession`) so that a killed app resumes exactly where it was: a
/// small JSON file, replaced atomically (write, sync, rename).
struct SyncProgress: Codable, Sendable, Equatable {
    /// A local commit not yet accepted by the server, and the id it is pushed under.
    struct Pending: Codable, Sendable, Equatable {
        var local: UInt64
        var id: UUID
        /// The scope version the store showed when the commit was made
        /// (see `ListHistory`); `nil` if unknown.
        var base: UInt64?
    }

    /// One object whose key differs between the scope and this journal.
    struct KeyPair: Codable, Sendable, Hashable {
        var type: String
        var scope: Int64
        var local: Int64
    }

    /// This device's id, drawn once: part of every ``commitID(device:commit:)``.
    var deviceID: UUID?
    /// The local journal version through which every commit was looked at:
    /// those made here are in `pending` or accepted.
    var scannedThrough: UInt64 = 0
    /// Local commits not yet accepted, oldest first.
    var pending: [Pending] = []
    /// Objects whose local key is not their key in the scope.
    var keyPairs: [KeyPair] = []
    /// The scope version the last rebase brought the store to: the base of
    /// the local commits made after it. `nil` before the first.
    var rebasedAt: UInt64?
    /// Server versions of this device's accepted commits newer than the
    /// oldest pending commit's base (see `ListHistory`).
    var ownVersions: [UInt64]?

    static func load(from url: URL?) throws -> SyncProgress {
        guard let url, FileManager.default.fileExists(atPath: url.path) else { return SyncProgress() }
        return try JSONDecoder().decode(SyncProgress.self, from: Data(contentsOf: url))
    }

    func save(to url: URL?) throws {
        guard let url else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(self)
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw SyncError.local("cannot create \(temporary.path)")
        }
        let handle = try FileHandle(forWritingTo: temporary)
        try handle.write(contentsOf: data)
        try handle.synchronize()
        try handle.close()
        if rename(temporary.path, url.path) != 0 {
            throw SyncError.local("cannot replace \(url.path): \(String(cString: strerror(errno)))")
        }
    }
}
