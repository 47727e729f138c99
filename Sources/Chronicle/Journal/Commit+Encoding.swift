/// A commit's payload in the journal's binary encoding, outside a journal.
///
/// The sync server stores and ships commits in exactly the bytes a journal
/// record carries (see <doc:JournalFormat>, "Commit payload"), without the
/// record's length and checksum framing.
extension Commit {
    /// The commit encoded as a journal record's payload.
    ///
    /// - Complexity: O(size of the commit).
    public func encoded() -> [UInt8] { EventCodec.encode(self) }

    /// Decodes a commit from a journal record's payload.
    ///
    /// The bytes are treated as hostile input: decoding never traps and
    /// never allocates more than the input's size.
    ///
    /// - Throws: ``CommitDecodingError`` when the bytes are not exactly one
    ///   well-formed commit.
    /// - Complexity: O(`bytes.count`).
    public init(encoded bytes: [UInt8]) throws(CommitDecodingError) {
        do {
            self = try EventCodec.decodeCommit(bytes)
        } catch {
            throw CommitDecodingError(offset: error.offset, reason: error.reason, isWrittenByNewerVersion: error.isUnknownTag)
        }
    }
}

/// Bytes that are not one well-formed encoded ``Commit``.
public struct CommitDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The byte offset at which decoding failed.
    public var offset: Int
    /// What was wrong there.
    public var reason: String
    /// Whether decoding stopped at an event kind, value type or schema
    /// attribute this build does not know, in an otherwise well-formed
    /// commit: a newer version of Chronicle encoded it (see
    /// ``JournalError/writtenByNewerVersion(version:offset:detail:)``).
    public var isWrittenByNewerVersion = false
    /// A readable description, such as `malformed commit at byte 3: unexpected end of data`.
    public var description: String {
        isWrittenByNewerVersion
            ? "commit written by a newer version of Chronicle: \(reason) at byte \(offset); decode it with a newer Chronicle"
            : "malformed commit at byte \(offset): \(reason)"
    }
}
