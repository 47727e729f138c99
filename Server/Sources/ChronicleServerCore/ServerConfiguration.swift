import Foundation
import Logging

/// How `chronicle-server` runs: from flags, falling back to environment
/// variables, falling back to defaults.
public struct ServerConfiguration: Sendable, Equatable {
    /// The PostgreSQL database, as `postgres://user:password@host:port/database`.
    public var databaseURL: String
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port to listen on; `0` picks a free one (printed when listening).
    public var port = 8080
    /// The token file (see ``TokenStore``).
    public var tokenFile: String
    /// The largest request body accepted, in bytes.
    public var maxBodyBytes = 16 << 20
    /// A snapshot of a scope is built every this many commits; `0` never.
    public var snapshotInterval: UInt64 = 10_000
    /// The log level.
    public var logLevel: Logger.Level = .info

    /// A configuration.
    public init(databaseURL: String, tokenFile: String) {
        self.databaseURL = databaseURL
        self.tokenFile = tokenFile
    }

    /// What `chronicle-server --help` prints.
    public static let help = """
    chronicle-server: serves Chronicle sync scopes, ordered by PostgreSQL.

    USAGE
      chronicle-server [options]
      chronicle-server hash-token TOKEN     print the SHA-256 of TOKEN, for the token file

    OPTIONS (each also read from the environment variable in brackets)
      --database-url URL       postgres://user:password@host:port/database  [CHRONICLE_DATABASE_URL] (required)
      --tokens PATH            the token file                               [CHRONICLE_TOKENS] (required)
      --host HOST              address to listen on (default 127.0.0.1)      [CHRONICLE_HOST]
      --port PORT              port to listen on (default 8080; 0: any free) [CHRONICLE_PORT]
      --max-body-bytes N       largest request body (default 16777216)       [CHRONICLE_MAX_BODY_BYTES]
      --snapshot-interval N    commits between scope snapshots (default 10000; 0: none) [CHRONICLE_SNAPSHOT_INTERVAL]
      --log-level LEVEL        trace, debug, info, notice, warning, error    [LOG_LEVEL]
      -h, --help               this text

    TOKEN FILE
      One token a line: its SHA-256 (hex), its access, the scopes it grants.
        # sha256                                                          access      scopes
        9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08  read-write  todo,notes
        60303ae22b998861bce3b28f33eec1be758a213c86c93c076dbe9f558c11c752  read        *
      Access is `read` or `read-write`; `*` grants every scope. The server
      keeps no plain tokens. Reload by restarting the process.

    ENDPOINTS (every one but /health needs `Authorization: Bearer TOKEN`)
      GET  /health
      GET  /v1/scopes/SCOPE/commits?after=N&wait=SECONDS&limit=N&bootstrap=1
      POST /v1/scopes/SCOPE/commits   (binary push body; 200, or 409 {"head": N})

    TLS: run behind a reverse proxy (nginx, Caddy, a load balancer) that
    terminates TLS; any number of servers may share one database.
    """

    /// A parsing failure, with a message for the terminal.
    public struct UsageError: Error, Equatable, CustomStringConvertible {
        /// What was wrong.
        public var description: String
    }

    /// The configuration named by `arguments` (without the program name)
    /// and `environment`; `nil` when help was asked for.
    public static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> ServerConfiguration? {
        var values: [String: String] = [:]
        let flags = ["--database-url": "CHRONICLE_DATABASE_URL", "--tokens": "CHRONICLE_TOKENS",
                     "--host": "CHRONICLE_HOST", "--port": "CHRONICLE_PORT",
                     "--max-body-bytes": "CHRONICLE_MAX_BODY_BYTES",
                     "--snapshot-interval": "CHRONICLE_SNAPSHOT_INTERVAL", "--log-level": "LOG_LEVEL"]
        for (flag, variable) in flags { if let value = environment[variable] { values[flag] = value } }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "-h" || argument == "--help" { return nil }
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "="), argument.hasPrefix("--") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            guard flags[name] != nil else { throw UsageError(description: "unknown option '\(argument)' (see --help)") }
            if value == nil {
                index += 1
                guard index < arguments.count else { throw UsageError(description: "\(name) needs a value") }
                value = arguments[index]
            }
            values[name] = value
            index += 1
        }
        guard let url = values["--database-url"] else {
            throw UsageError(description: "no database: pass --database-url or set CHRONICLE_DATABASE_URL")
        }
        guard let tokens = values["--tokens"] else {
            throw UsageError(description: "no token file: pass --tokens or set CHRONICLE_TOKENS")
        }
        var configuration = ServerConfiguration(databaseURL: url, tokenFile: tokens)
        _ = try DatabaseAddress(url)
        if let host = values["--host"] { configuration.host = host }
        if let port = values["--port"] {
            guard let number = Int(port), (0...65535).contains(number) else {
                throw UsageError(description: "--port must be a number from 0 to 65535, not '\(port)'")
            }
            configuration.port = number
        }
        if let size = values["--max-body-bytes"] {
            guard let number = Int(size), number > 0 else {
                throw UsageError(description: "--max-body-bytes must be a positive number, not '\(size)'")
            }
            configuration.maxBodyBytes = number
        }
        if let interval = values["--snapshot-interval"] {
            guard let number = UInt64(interval) else {
                throw UsageError(description: "--snapshot-interval must be a number, not '\(interval)'")
            }
            configuration.snapshotInterval = number
        }
        if let level = values["--log-level"] {
            guard let parsed = Logger.Level(rawValue: level) else {
                throw UsageError(description: "--log-level must be one of trace, debug, info, notice, warning, error, critical, not '\(level)'")
            }
            configuration.logLevel = parsed
        }
        return configuration
    }
}

/// The parts of a `postgres://` URL.
public struct DatabaseAddress: Sendable, Equatable {
    /// The host.
    public var host: String
    /// The port (5432 when the URL names none).
    public var port: Int
    /// The user.
    public var username: String
    /// The password, if the URL has one.
    public var password: String?
    /// The database.
    public var database: String

    /// Parses `postgres://user:password@host:port/database`.
    public init(_ url: String) throws(ServerConfiguration.UsageError) {
        guard let components = URLComponents(string: url),
              components.scheme == "postgres" || components.scheme == "postgresql",
              let host = components.host, !host.isEmpty,
              let user = components.user, !user.isEmpty else {
            throw .init(description: "the database URL must look like postgres://user:password@host:port/database")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw .init(description: "the database URL names no database (…/database at its end)") }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
    }
}
