import Crypto
import Foundation

/// The bearer tokens a server accepts, kept as SHA-256 digests only.
///
/// A token file has one token a line: the token's SHA-256 in hex, its
/// access (`read` or `read-write`), and a comma-separated list of the scopes
/// it grants (`*` for every scope). Blank lines and lines starting with `#`
/// are ignored.
public struct TokenStore: Sendable {
    /// What a token lets its bearer do.
    public enum Access: String, Sendable {
        /// Pull commits.
        case read
        /// Pull and push commits.
        case readWrite = "read-write"
    }

    struct Grant: Sendable {
        var access: Access
        var scopes: Set<String>
        var allScopes: Bool
    }

    private let grants: [String: Grant]

    /// The tokens of a token file's text.
    public init(text: String) throws(ServerConfiguration.UsageError) {
        var grants: [String: Grant] = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 3 else {
                throw .init(description: "token file line \(number + 1): expected 'SHA256 ACCESS SCOPES', found \(fields.count) fields")
            }
            let digest = fields[0].lowercased()
            guard digest.count == 64, digest.allSatisfy(\.isHexDigit) else {
                throw .init(description: "token file line \(number + 1): '\(fields[0])' is not a SHA-256 in hex (64 digits); make one with `chronicle-server hash-token TOKEN`")
            }
            guard let access = Access(rawValue: String(fields[1])) else {
                throw .init(description: "token file line \(number + 1): access must be 'read' or 'read-write', not '\(fields[1])'")
            }
            let scopes = Set(fields[2].split(separator: ",").map(String.init))
            grants[digest] = Grant(access: access, scopes: scopes, allScopes: scopes.contains("*"))
        }
        self.grants = grants
    }

    /// The tokens of the file at `path`.
    public init(contentsOf path: String) throws(ServerConfiguration.UsageError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw .init(description: "cannot read the token file \(path): \(error.localizedDescription)")
        }
        try self.init(text: text)
    }

    /// The SHA-256 of a token, in hex: what the token file stores.
    public static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The outcome of checking a request's token.
    public enum Decision: Equatable, Sendable {
        /// Go ahead.
        case allowed
        /// No token, or one the server does not know: 401.
        case unauthenticated
        /// A known token that does not grant this: 403.
        case forbidden
    }

    /// Whether the bearer of `token` may read (or, with `writing`, push to) `scope`.
    public func decide(token: String?, scope: String, writing: Bool) -> Decision {
        guard let token, let grant = grants[Self.hash(token)] else { return .unauthenticated }
        guard grant.allScopes || grant.scopes.contains(scope) else { return .forbidden }
        if writing && grant.access != .readWrite { return .forbidden }
        return .allowed
    }
}
