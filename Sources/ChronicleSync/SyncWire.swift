import Chronicle
import Foundation

/// The sync protocol's binary bodies, shared by `SyncSession` and
/// `chronicle-server` (which imports this module through the `SyncServer`
/// SPI). Commits travel as their journal payloads (``Commit/encoded()``).
///
/// A push request body:
///
/// | Field | Encoding |
/// |---|---|
/// | format | one byte, `1` |
/// | base version (the head the commits follow) | varint |
/// | commit count, at least 1 | varint |
/// | each commit: id | 16 bytes (a UUID) |
/// | each commit: payload length, payload | varint, bytes |
///
/// A pull response body:
///
/// | Field | Encoding |
/// |---|---|
/// | format | one byte, `1` |
/// | the scope's head | varint |
/// | snapshot flag | one byte, `0` or `1`; if `1`, a payload length and a snapshot commit follow |
/// | commit count | varint |
/// | each commit: id, payload length, payload | 16 bytes, varint, bytes |
///
/// Varints are unsigned LEB128, as in the journal. Every decoder here treats
/// its input as hostile: it throws ``SyncWireError`` and never traps, and a
/// length field never makes it allocate more than the bytes that remain.
@_spi(SyncServer) public enum SyncWire {
    /// The one format byte both bodies start with.
    public static let format: UInt8 = 1
    /// The most commits one push may carry.
    public static let maximumCommitsPerPush = 10_000

    /// One commit on the wire: the client-chosen id and the encoded commit.
    public struct WireCommit: Sendable, Hashable {
        /// The id the writer chose; the server keeps one copy per id and scope.
        public var id: UUID
        /// The commit's journal payload.
        public var payload: [UInt8]
        /// A wire commit.
        public init(id: UUID, payload: [UInt8]) {
            self.id = id
            self.payload = payload
        }
    }

    /// A decoded push request.
    public struct Push: Sendable, Hashable {
        /// The scope head the commits were made against.
        public var base: UInt64
        /// The commits, in order: the first becomes version `base + 1`.
        public var commits: [WireCommit]
        /// A push.
        public init(base: UInt64, commits: [WireCommit]) {
            self.base = base
            self.commits = commits
        }
    }

    /// A decoded pull response.
    public struct Pull: Sendable, Hashable {
        /// The scope's last version when the server answered.
        public var head: UInt64
        /// A snapshot commit to start from (bootstrap), if the server sent one.
        public var snapshot: [UInt8]?
        /// The commits after the requested version (or after the snapshot).
        public var commits: [WireCommit]
        /// A pull.
        public init(head: UInt64, snapshot: [UInt8]?, commits: [WireCommit]) {
            self.head = head
            self.snapshot = snapshot
            self.commits = commits
        }
    }

    // MARK: Push

    /// The body of a push.
    public static func encode(_ push: Push) -> [UInt8] {
        var w = Writer()
        w.byte(format)
        w.varint(push.base)
        w.varint(UInt64(push.commits.count))
        for commit in push.commits { w.commit(commit) }
        return w.bytes
    }

    /// Decodes a push body, checking its framing only (not the commits).
    public static func decodePush(_ bytes: [UInt8]) throws(SyncWireError) -> Push {
        var r = Reader(bytes)
        try r.expectFormat()
        let base = try r.varint()
        let count = try r.varint()
        guard count >= 1 else { throw r.fail("a push must carry at least one commit") }
        guard count <= UInt64(maximumCommitsPerPush) else {
            throw r.fail("a push carries at most \(maximumCommitsPerPush) commits, not \(count)")
        }
        // Each commit takes at least 17 bytes: a count beyond that is a lie.
        guard count <= UInt64(r.remaining / 17) else { throw r.fail("commit count \(count) exceeds the body") }
        var commits: [WireCommit] = []
        commits.reserveCapacity(Int(count))
        for _ in 0..<count { commits.append(try r.commit()) }
        guard r.isAtEnd else { throw r.fail("\(r.remaining) unexpected bytes after the last commit") }
        return Push(base: base, commits: commits)
    }

    /// Decodes a push body as the server must: its framing, and each
    /// payload is exactly one well-formed commit whose version follows the
    /// base (the first is `base + 1`), with no commit id twice. What the
    /// commits do to the scope's state is not checked here.
    ///
    /// - Complexity: O(`bytes.count`).
    public static func decodeCheckedPush(_ bytes: [UInt8]) throws(SyncWireError) -> Push {
        let push = try decodePush(bytes)
        var ids = Set<UUID>()
        for (offset, wire) in push.commits.enumerated() {
            let version: UInt64
            do { version = try Commit(encoded: wire.payload).version } catch {
                throw SyncWireError(offset: 0, reason: "commit \(offset + 1): \(error)")
            }
            let (expected, overflow) = push.base.addingReportingOverflow(UInt64(offset) + 1)
            guard !overflow, expected <= UInt64(Int64.max) else {
                throw SyncWireError(offset: 0, reason: "base version \(push.base) is too large")
            }
            guard version == expected else {
                throw SyncWireError(offset: 0, reason: "commit \(offset + 1) has version \(version); after base \(push.base) it must be \(expected)")
            }
            guard ids.insert(wire.id).inserted else {
                throw SyncWireError(offset: 0, reason: "commit id \(wire.id) appears twice")
            }
        }
        return push
    }

    // MARK: Pull

    /// The body of a pull response.
    public static func encode(_ pull: Pull) -> [UInt8] {
        var w = Writer()
        w.byte(format)
        w.varint(pull.head)
        if let snapshot = pull.snapshot {
            w.byte(1)
            w.varint(UInt64(snapshot.count))
            w.bytes.append(contentsOf: snapshot)
        } else {
            w.byte(0)
        }
        w.varint(UInt64(pull.commits.count))
        for commit in pull.commits { w.commit(commit) }
        return w.bytes
    }

    /// Decodes a pull response body.
    public static func decodePull(_ bytes: [UInt8]) throws(SyncWireError) -> Pull {
        var r = Reader(bytes)
        try r.expectFormat()
        let head = try r.varint()
        var snapshot: [UInt8]?
        switch try r.byte() {
        case 0: snapshot = nil
        case 1: snapshot = try r.lengthPrefixed()
        case let other: throw r.fail("snapshot flag \(other) is neither 0 nor 1")
        }
        let count = try r.varint()
        guard count <= UInt64(r.remaining / 17) else { throw r.fail("commit count \(count) exceeds the body") }
        var commits: [WireCommit] = []
        commits.reserveCapacity(Int(count))
        for _ in 0..<count { commits.append(try r.commit()) }
        guard r.isAtEnd else { throw r.fail("\(r.remaining) unexpected bytes after the last commit") }
        return Pull(head: head, snapshot: snapshot, commits: commits)
    }

    // MARK: Primitives

    struct Writer {
        var bytes: [UInt8] = []
        mutating func byte(_ b: UInt8) { bytes.append(b) }
        mutating func varint(_ value: UInt64) {
            var v = value
            while v >= 0x80 {
                bytes.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            bytes.append(UInt8(v))
        }
        mutating func commit(_ commit: WireCommit) {
            withUnsafeBytes(of: commit.id.uuid) { bytes.append(contentsOf: $0) }
            varint(UInt64(commit.payload.count))
            bytes.append(contentsOf: commit.payload)
        }
    }

    struct Reader {
        let bytes: [UInt8]
        var offset = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        var remaining: Int { bytes.count - offset }
        var isAtEnd: Bool { offset == bytes.count }
        func fail(_ reason: String) -> SyncWireError { SyncWireError(offset: offset, reason: reason) }

        mutating func byte() throws(SyncWireError) -> UInt8 {
            guard offset < bytes.count else { throw fail("unexpected end of body") }
            defer { offset += 1 }
            return bytes[offset]
        }
        mutating func expectFormat() throws(SyncWireError) {
            let found = try byte()
            guard found == SyncWire.format else { throw fail("format \(found) is not \(SyncWire.format)") }
        }
        mutating func varint() throws(SyncWireError) -> UInt64 {
            var result: UInt64 = 0
            for shift in stride(from: 0, to: 64, by: 7) {
                let b = try byte()
                if shift == 63 && b > 1 { throw fail("varint overflows 64 bits") }
                result |= UInt64(b & 0x7F) << UInt64(shift)
                if b & 0x80 == 0 { return result }
            }
            throw fail("varint longer than 10 bytes")
        }
        mutating func lengthPrefixed() throws(SyncWireError) -> [UInt8] {
            let length = try varint()
            guard length <= UInt64(remaining) else { throw fail("length \(length) runs past the end of the body") }
            let start = offset
            offset += Int(length)
            return Array(bytes[start..<offset])
        }
        mutating func commit() throws(SyncWireError) -> WireCommit {
            guard remaining >= 16 else { throw fail("unexpected end of body in a commit id") }
            let b = bytes[offset..<offset + 16].map { $0 }
            offset += 16
            let id = UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                 b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
            let payload = try lengthPrefixed()
            guard !payload.isEmpty else { throw fail("empty commit payload") }
            return WireCommit(id: id, payload: payload)
        }
    }
}

/// A sync body that is not well-formed.
@_spi(SyncServer) public struct SyncWireError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset at which decoding failed.
    public var offset: Int
    /// What was wrong there.
    public var reason: String
    /// A readable description.
    public var description: String { "malformed sync body at byte \(offset): \(reason)" }
}
