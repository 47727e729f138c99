import Chronicle
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP side of a session: bearer token on every request; pulls
/// (long-polls) and pushes on URLSessions of their own, so that a push
/// never waits for, nor cuts short, the long-poll waiting on the server.
struct SyncTransport: Sendable {
    let server: URL
    let scope: String
    let token: String
    private let pulls: URLSession
    private let pushes: URLSession

    init(server: URL, scope: String, token: String) {
        self.server = server
        self.scope = scope
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 90
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        pulls = URLSession(configuration: configuration)
        pushes = URLSession(configuration: configuration)
    }

    enum PushOutcome: Sendable, Equatable {
        case accepted(versions: [UInt64])
        case conflict(head: UInt64)
    }

    private var commitsURL: URL {
        server.appendingPathComponent("v1").appendingPathComponent("scopes").appendingPathComponent(scope)
            .appendingPathComponent("commits")
    }

    /// The commits after `after`, waiting up to `wait` seconds for one.
    func pull(after: UInt64, wait: Int, bootstrap: Bool) async throws(SyncError) -> SyncWire.Pull {
        var components = URLComponents(url: commitsURL, resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "after", value: String(after)), URLQueryItem(name: "wait", value: String(wait))]
            + (bootstrap ? [URLQueryItem(name: "bootstrap", value: "1")] : [])
        var request = URLRequest(url: components.url!)
        request.httpMethod = "GET"
        let (status, body) = try await send(request, on: pulls)
        guard status == 200 else { throw Self.failure(status, body) }
        do { return try SyncWire.decodePull(body) } catch { throw .protocolViolation(error.description) }
    }

    /// Pushes commits at `base`.
    func push(base: UInt64, commits: [SyncWire.WireCommit]) async throws(SyncError) -> PushOutcome {
        var request = URLRequest(url: commitsURL)
        request.httpMethod = "POST"
        request.httpBody = Data(SyncWire.encode(.init(base: base, commits: commits)))
        request.setValue("application/octet-stream", forHTTPHeaderField: "Content-Type")
        let (status, body) = try await send(request, on: pushes)
        let json = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        switch status {
        case 200:
            guard let versions = json?["versions"] as? [Any] else { throw .protocolViolation("a push answer without versions") }
            return .accepted(versions: versions.compactMap { ($0 as? NSNumber)?.uint64Value })
        case 409:
            guard let head = (json?["head"] as? NSNumber)?.uint64Value else { throw .protocolViolation("a conflict answer without head") }
            return .conflict(head: head)
        default:
            throw Self.failure(status, body)
        }
    }

    private static func failure(_ status: Int, _ body: [UInt8]) -> SyncError {
        switch status {
        case 401: .unauthorized
        case 403: .forbidden
        case 500...: .network("server error \(status)")
        default: .protocolViolation("HTTP \(status): \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
    }

    /// Sends a request; cancelling the calling task cancels it at once.
    private func send(_ request: URLRequest, on session: URLSession) async throws(SyncError) -> (Int, [UInt8]) {
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let box = TaskBox()
        let result: Result<(Int, [UInt8]), SyncError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(returning: .failure(.network(error.localizedDescription)))
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: .success((response.statusCode, Array(data ?? Data()))))
                    } else {
                        continuation.resume(returning: .failure(.network("no HTTP response")))
                    }
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
        return try result.get()
    }
}

/// Holds a data task for cancellation from another thread.
private final class TaskBox: @unchecked Sendable {
    // Safety: every access to `task` and `cancelled` holds `lock`.
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancel = cancelled
        lock.unlock()
        if cancel { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
