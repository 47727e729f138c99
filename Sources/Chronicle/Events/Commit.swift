import Foundation

/// One atomic unit of the journal: everything a write transaction changed.
///
/// A commit is either wholly in the journal or not at all. Versions are
/// gap-free and start at 1.
public struct Commit: Hashable, Sendable {
    /// The state version this commit produces.
    public var version: UInt64
    /// When the commit was made (the store's clock).
    public var timestamp: Date
    /// An optional human-readable label, such as `"adopt dog"`.
    public var label: String?
    /// Free-form string metadata the writer attached.
    public var metadata: [String: String]
    /// The changes, in the order they were made.
    public var events: [Event]

    /// A commit with the given fields.
    public init(version: UInt64, timestamp: Date, label: String? = nil, metadata: [String: String] = [:], events: [Event]) {
        self.version = version
        self.timestamp = timestamp
        self.label = label
        self.metadata = metadata
        self.events = events
    }
}
