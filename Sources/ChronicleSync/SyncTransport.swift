import Chronicle
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The HTTP side of a session: bearer token on every request; pulls
/// (long-polls) and pushes on URLSessions of their own, so that a push
/// never waits for, nor cuts short, the long-poll waiting on the server.
///
/// A request whose calling task is cancelled is *abandoned*, not
/// cancelled: the call returns at once, and the request goes on, its answer
/// ignored, on a URLSession that is then replaced for the requests after it
/// (and invalidated once its requests end). Why: on Linux, swift-corelibs-
/// foundation's `URLSessionTask.cancel()` races with the task's completion
/// — cancelling a request the server is answering right then (a long-poll
/// woken by a commit, or cut by the server going away, as the session
/// stops) crashes the process in `URLSession.behaviour(for:)`. An abandoned
/// long-poll holds its connection until the server answers it, within the
/// wait it asked for. An abandoned push may land on the server later, after
/// the session moved on (a rebase, a restart) — as a push whose answer was
/// lost does, cancelled or not: the server finds its commit ids when the
/// session pushes them again, or the next pull brings them as this
/// device's own (see `SyncEngine.accepted(versions:found:)`).
struct SyncTransport: Sendable {
    let server: URL
    let scope: String
    let token: String
    private let pulls: SessionSlot
    private let pushes: SessionSlot

    init(server: URL, scope: String, token: String) {
        self.server = server
        self.scope = scope
        self.token = token
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 90
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        pulls = SessionSlot(configuration)
        pushes = SessionSlot(configuration)
    }

    enum PushOutcome: Sendable, Equatable {
        /// Appended at `versions`; or, when `found`, every commit was
        /// accepted before (an earlier try), with the payload of that try.
        case accepted(versions: [UInt64], found: Bool)
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
            return .accepted(versions: versions.compactMap { ($0 as? NSNumber)?.uint64Value },
                             found: (json?["found"] as? NSNumber)?.boolValue ?? false)
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

    /// Sends a request. Cancelling the calling task abandons it at once
    /// (see the type's documentation) and throws ``SyncError/network(_:)``.
    private func send(_ request: URLRequest, on slot: SessionSlot) async throws(SyncError) -> (Int, [UInt8]) {
        var request = request
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let session = slot.current
        let box = RequestBox()
        let result: Result<(Int, [UInt8]), SyncError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        box.finish(.failure(.network(error.localizedDescription)))
                    } else if let response = response as? HTTPURLResponse {
                        box.finish(.success((response.statusCode, Array(data ?? Data()))))
                    } else {
                        box.finish(.failure(.network("no HTTP response")))
                    }
                }
                box.start(task, continuation)
            }
        } onCancel: {
            if box.abandon() { slot.replace(session) }
        }
        return try result.get()
    }
}

/// The URLSession a kind of request goes on, replaced when a request on it
/// is abandoned.
private final class SessionSlot: @unchecked Sendable {
    // Safety: every access to `session` holds `lock`.
    private let lock = NSLock()
    private let configuration: URLSessionConfiguration
    private var session: URLSession

    init(_ configuration: URLSessionConfiguration) {
        self.configuration = configuration
        session = URLSession(configuration: configuration)
    }

    var current: URLSession {
        lock.lock()
        defer { lock.unlock() }
        return session
    }

    /// Replaces `abandoned`, if it is still the current session, with a
    /// new one; it ends once its requests do.
    func replace(_ abandoned: URLSession) {
        lock.lock()
        let replaced = session === abandoned
        if replaced { session = URLSession(configuration: configuration) }
        lock.unlock()
        if replaced { abandoned.finishTasksAndInvalidate() }
    }
}

/// One request's outcome, delivered once: by its completion, or by its
/// abandonment, whichever comes first.
private final class RequestBox: @unchecked Sendable {
    // Safety: every access to the stored properties holds `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Result<(Int, [UInt8]), SyncError>, Never>?
    private var abandoned = false
    private var delivered = false

    /// Starts `task`, unless the request was abandoned already (then
    /// delivers the abandonment).
    func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<Result<(Int, [UInt8]), SyncError>, Never>) {
        lock.lock()
        if abandoned {
            delivered = true
            lock.unlock()
            continuation.resume(returning: .failure(Self.abandonment))
            return
        }
        self.continuation = continuation
        lock.unlock()
        task.resume()
    }

    /// Delivers the request's outcome, unless it was abandoned.
    func finish(_ result: Result<(Int, [UInt8]), SyncError>) {
        lock.lock()
        let continuation = delivered ? nil : self.continuation
        delivered = true
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: result)
    }

    /// Abandons the request; `true` if it was started and not yet answered
    /// (its session should then be replaced).
    func abandon() -> Bool {
        lock.lock()
        abandoned = true
        let continuation = delivered ? nil : self.continuation
        if continuation != nil { delivered = true }
        self.continuation = nil
        lock.unlock()
        continuation?.resume(returning: .failure(Self.abandonment))
        return continuation != nil
    }

    static let abandonment = SyncError.network("the request was cancelled")
}
