/// Where a ``SyncSession`` is, as its ``SyncSession/states`` report it.
public enum SyncState: Sendable, Hashable {
    /// Not started, or stopped.
    case disconnected
    /// The server answered; nothing is known to be pending yet.
    case connected
    /// Pushing this many local commits.
    case uploading(Int)
    /// Applying this many commits from the server.
    case downloading(Int)
    /// Every local commit is on the server and every server commit is applied.
    case upToDate
    /// The last attempt failed; the session retries by itself (after a
    /// short, growing pause) unless the error is ``SyncError/isPermanent``.
    case error(SyncError)
}

/// Why a sync attempt failed.
public enum SyncError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server could not be reached or the connection broke.
    case network(String)
    /// The server refused the token (401): the session stops.
    case unauthorized
    /// The token does not grant this scope, or only reads it and there are local commits to push (403): the session stops.
    case forbidden
    /// The server answered something this client does not understand.
    case protocolViolation(String)
    /// A type or property of this store does not match the scope's:
    /// update the app to the scope's schema. The session stops.
    case schemaMismatch(String)
    /// The store or the sync progress file failed.
    case local(String)

    /// Whether retrying cannot help: the session stops on such an error.
    public var isPermanent: Bool {
        switch self {
        case .unauthorized, .forbidden, .schemaMismatch: true
        case .network, .protocolViolation, .local: false
        }
    }

    /// A readable description.
    public var description: String {
        switch self {
        case .network(let reason): "network: \(reason)"
        case .unauthorized: "the server does not accept this token (401)"
        case .forbidden: "this token does not grant this scope (or only reads it) (403)"
        case .protocolViolation(let reason): "unexpected server answer: \(reason)"
        case .schemaMismatch(let reason): "the store's schema does not match the scope's: \(reason); update the app"
        case .local(let reason): "local: \(reason)"
        }
    }
}
