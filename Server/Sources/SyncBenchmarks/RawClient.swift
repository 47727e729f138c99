@_spi(SyncServer) import ChronicleSync
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The server's HTTP API without a `SyncSession`: for the parts of the
/// benchmarks that measure the server alone, and for seeding scopes.
struct RawClient: Sendable {
    let base: URL
    let token: String
    let session: URLSession

    init(base: URL, token: String) {
        self.base = base
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 600
        session = URLSession(configuration: configuration)
    }

    private func url(_ scope: String, query: String = "") -> URL {
        URL(string: "/v1/scopes/\(scope)/commits\(query)", relativeTo: base)!
    }

    /// Pushes an encoded push body; returns the new head (throws on anything but 200).
    @discardableResult
    func push(_ scope: String, body: Data) async throws -> UInt64 {
        var request = URLRequest(url: url(scope))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard status == 200, let head = (json?["head"] as? NSNumber)?.uint64Value else {
            throw BenchError("push to \(scope) answered \(status): \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        return head
    }

    /// Pushes `commits` at `base`.
    @discardableResult
    func push(_ scope: String, base: UInt64, _ commits: [SyncWire.WireCommit]) async throws -> UInt64 {
        try await push(scope, body: Self.body(base: base, commits))
    }

    static func body(base: UInt64, _ commits: [SyncWire.WireCommit]) -> Data {
        Data(SyncWire.encode(.init(base: base, commits: commits)))
    }

    /// A pull: the commits after `after` (waiting up to `wait` seconds for one), and the body's size.
    func pull(_ scope: String, after: UInt64, wait: Int = 0, limit: Int = 1000, bootstrap: Bool = false) async throws -> (pull: SyncWire.Pull, bytes: Int) {
        var request = URLRequest(url: url(scope, query: "?after=\(after)&wait=\(wait)&limit=\(limit)\(bootstrap ? "&bootstrap=1" : "")"))
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            throw BenchError("pull of \(scope) answered \(status): \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        return (try SyncWire.decodePull(Array(data)), data.count)
    }
}
