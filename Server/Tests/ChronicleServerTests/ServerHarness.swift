import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Real `chronicle-server` processes on 127.0.0.1 against the test database
/// (`CHRONICLE_TEST_DATABASE_URL`, else the one `scripts/start-postgres` makes).
enum Harness {
    static let databaseURL = ProcessInfo.processInfo.environment["CHRONICLE_TEST_DATABASE_URL"]
        ?? "postgres://chronicle:chronicle@127.0.0.1:5432/chronicle_test"

    /// The built `chronicle-server` (`CHRONICLE_SERVER_BINARY`, else the debug build next to these tests).
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["CHRONICLE_SERVER_BINARY"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/chronicle-server")
    }

    /// A scope no other test run used.
    static func freshScope(_ name: String = "t") -> String { "\(name)-\(UUID().uuidString.prefix(13).lowercased())" }

    static let writer = "writer-" + UUID().uuidString
    static let reader = "reader-" + UUID().uuidString
    static let alphaWriter = "alpha-" + UUID().uuidString
    static let alphaScope = freshScope("alpha")

    /// A token file: `writer` writes every scope, `reader` reads every
    /// scope, `alphaWriter` writes only `alphaScope`.
    static let tokenFile: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-tokens-\(UUID().uuidString)")
        let text = """
        # test tokens
        \(sha256(writer)) read-write *
        \(sha256(reader)) read *
        \(sha256(alphaWriter)) read-write \(alphaScope)
        """
        try! text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }()

    static func sha256(_ token: String) -> String {
        // Through the server's own command, as an operator makes a token file.
        let process = Process()
        process.executableURL = binary
        process.arguments = ["hash-token", token]
        let pipe = Pipe()
        process.standardOutput = pipe
        try! process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension ServerProcess {
    /// Launches a server of the test database and tokens on `port` (`0`: a free one) and waits until it listens.
    convenience init(port: Int = 0, extraArguments: [String] = []) async throws {
        try await self.init(binary: Harness.binary, databaseURL: Harness.databaseURL, tokenFile: Harness.tokenFile,
                            port: port, extraArguments: extraArguments)
    }
}

/// A plain HTTP client for the API: URLSession, as a user's client would be.
struct API {
    let base: URL
    var token: String?

    struct Reply {
        var status: Int
        var body: Data
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
        var pull: SyncWire.Pull? { try? SyncWire.decodePull(Array(body)) }
    }

    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 90
        return URLSession(configuration: configuration)
    }()

    func request(_ method: String, _ path: String, body: [UInt8]? = nil, token: String?? = .none) async throws -> Reply {
        var request = URLRequest(url: URL(string: path, relativeTo: base)!)
        request.httpMethod = method
        let bearer: String? = switch token { case .none: self.token; case .some(let explicit): explicit }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await Self.session.data(for: request)
        return Reply(status: (response as! HTTPURLResponse).statusCode, body: data)
    }

    func push(_ scope: String, base: UInt64, _ commits: [SyncWire.WireCommit], token: String?? = .none) async throws -> Reply {
        try await request("POST", "/v1/scopes/\(scope)/commits", body: SyncWire.encode(.init(base: base, commits: commits)), token: token)
    }

    func pull(_ scope: String, after: UInt64, wait: Int = 0, bootstrap: Bool = false, token: String?? = .none) async throws -> Reply {
        try await request("GET", "/v1/scopes/\(scope)/commits?after=\(after)&wait=\(wait)\(bootstrap ? "&bootstrap=1" : "")", token: token)
    }
}

/// Real commits of a small schema: version 1 defines `Item(id, title)`,
/// every later version creates one item.
enum Commits {
    static let item = TypeSchema(name: "Item", properties: [
        PropertySchema(name: "id", type: .int, isPrimaryKey: true),
        PropertySchema(name: "title", type: .string),
    ])

    static func commit(_ version: UInt64) -> Commit {
        let events: [Event] = version == 1
            ? [.defineType(item)]
            : [.create(table: 0, key: ObjectKey(Int64(version)), values: [.int(Int64(version)), .string("item \(version)")])]
        return Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)), events: events)
    }

    static func wire(_ versions: ClosedRange<UInt64>) -> [SyncWire.WireCommit] {
        versions.map { SyncWire.WireCommit(id: UUID(), payload: commit($0).encoded()) }
    }
}
