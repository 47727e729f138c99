import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import Hummingbird
import Logging
import NIOCore

/// The HTTP API of `chronicle-server`.
///
/// - `GET /health`: `{"status":"ok"}`, or 503 when the database does not answer.
/// - `GET /v1/scopes/{scope}/commits?after=N&wait=S&limit=N&bootstrap=1`:
///   the commits after version `N` (a binary pull body, see `SyncWire`);
///   with none yet, waits up to `S` seconds (at most 60) for one. With
///   `bootstrap=1` the answer starts with the newest snapshot after `N`, if any.
/// - `POST /v1/scopes/{scope}/commits`: appends a binary push body's
///   commits at its base version: 200 with `{"versions":[…],"head":N}`;
///   200 with `{"versions":[…],"head":N,"found":true}` when every commit id
///   was accepted before (the versions it got then; its payload is the
///   earlier try's); or 409 with `{"head":N}` when the scope moved on, or
///   some of the ids were accepted before and some not (pull, rebase, push
///   again).
///
/// Every request but `/health` carries `Authorization: Bearer TOKEN`: 401
/// without a token the server knows, 403 when it does not grant the scope
/// (or only reads and the request pushes). Those requests touch nothing.
public struct SyncRoutes: Sendable {
    let database: CommitDatabase
    let notifier: CommitNotifier
    let tokens: TokenStore
    let configuration: ServerConfiguration
    /// How long a waiting pull sleeps before it looks again without a
    /// notification (a lost LISTEN connection only delays it this much).
    static let pollInterval: Duration = .seconds(2)

    /// Routes served from `database`.
    public init(database: CommitDatabase, notifier: CommitNotifier, tokens: TokenStore, configuration: ServerConfiguration) {
        self.database = database
        self.notifier = notifier
        self.tokens = tokens
        self.configuration = configuration
    }

    /// Adds the routes to `router`.
    public func register(on router: Router<BasicRequestContext>) {
        router.get("/health") { _, _ in try await self.health() }
        router.get("/v1/scopes/:scope/commits") { request, context in try await self.pull(request, context) }
        router.post("/v1/scopes/:scope/commits") { request, context in try await self.push(request, context) }
    }

    func health() async throws -> Response {
        do {
            _ = try await database.head(of: "")
            return Self.json(.ok, #"{"status":"ok"}"#)
        } catch {
            return Self.json(.serviceUnavailable, #"{"status":"database unavailable"}"#)
        }
    }

    /// A scope name: 1 to 128 of letters, digits, `.`, `_` and `-`.
    public static func isValidScope(_ scope: String) -> Bool {
        (1...128).contains(scope.utf8.count)
            && scope.utf8.allSatisfy { b in
                (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2E || b == 0x5F || b == 0x2D
            }
    }

    /// Checks the token and scope; throws the 400/401/403 to answer.
    func authorize(_ request: Request, _ context: BasicRequestContext, writing: Bool) throws -> String {
        let header = request.headers[.authorization]
        var token: String?
        if let header, header.hasPrefix("Bearer ") { token = String(header.dropFirst(7)) }
        let scope = context.parameters.get("scope") ?? ""
        switch tokens.decide(token: token, scope: scope, writing: writing) {
        case .unauthenticated:
            throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer"], message: "a valid bearer token is required")
        case .forbidden:
            throw HTTPError(.forbidden, message: writing ? "this token may not push to this scope" : "this token may not read this scope")
        case .allowed:
            break
        }
        guard Self.isValidScope(scope) else {
            throw HTTPError(.badRequest, message: "a scope name is 1 to 128 letters, digits, '.', '_' or '-'")
        }
        return scope
    }

    /// Reads an unsigned number query parameter.
    static func number(_ request: Request, _ name: String, default value: UInt64, max: UInt64) throws -> UInt64 {
        guard let text = request.uri.queryParameters.get(name) else { return value }
        guard let number = UInt64(text), number <= max else {
            throw HTTPError(.badRequest, message: "'\(name)' must be a whole number from 0 to \(max)")
        }
        return number
    }

    func pull(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let scope = try authorize(request, context, writing: false)
        let after = try Self.number(request, "after", default: 0, max: UInt64(Int64.max))
        let wait = try Self.number(request, "wait", default: 0, max: 60)
        let limit = try Self.number(request, "limit", default: 1000, max: 10_000)
        let bootstrap = try Self.number(request, "bootstrap", default: 0, max: 1) == 1
        let deadline = ContinuousClock.now + .seconds(Int(wait))
        var snapshot: (version: UInt64, payload: [UInt8])?
        if bootstrap { snapshot = try await database.snapshot(of: scope, after: after) }
        let from = snapshot?.version ?? after
        while true {
            let page = try await database.commits(of: scope, after: from, limit: Int(max(limit, 1)),
                                                   byteLimit: configuration.maxBodyBytes)
            let now = ContinuousClock.now
            if !page.commits.isEmpty || snapshot != nil || now >= deadline || Task.isCancelled {
                let body = SyncWire.encode(SyncWire.Pull(head: page.head, snapshot: snapshot?.payload, commits: page.commits))
                context.logger.debug("pull", metadata: ["scope": "\(scope)", "after": "\(after)",
                                                        "commits": "\(page.commits.count)", "head": "\(page.head)"])
                return Response(status: .ok, headers: [.contentType: "application/octet-stream"],
                                body: .init(byteBuffer: ByteBuffer(bytes: body)))
            }
            await notifier.wait(for: scope, timeout: min(deadline - now, Self.pollInterval))
        }
    }

    func push(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let scope = try authorize(request, context, writing: true)
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: configuration.maxBodyBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw HTTPError(.contentTooLarge, message: "the body is larger than \(configuration.maxBodyBytes) bytes")
        }
        let push: SyncWire.Push
        do {
            push = try SyncWire.decodeCheckedPush(Array(buffer: buffer))
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
        switch try await database.append(push, scope: scope) {
        case .accepted(let versions, let head):
            context.logger.info("push", metadata: ["scope": "\(scope)", "base": "\(push.base)",
                                                   "commits": "\(push.commits.count)", "head": "\(head)"])
            let interval = configuration.snapshotInterval
            if interval > 0, let last = versions.last, last == head, (push.base / interval) != (head / interval) {
                let database = self.database
                let logger = context.logger
                Task {
                    do { try await database.buildSnapshot(of: scope) } catch {
                        logger.error("snapshot failed", metadata: ["scope": "\(scope)", "error": "\(String(reflecting: error))"])
                    }
                }
            }
            let list = versions.map(String.init).joined(separator: ",")
            return Self.json(.ok, #"{"versions":[\#(list)],"head":\#(head)}"#)
        case .found(let versions, let head):
            context.logger.info("push found", metadata: ["scope": "\(scope)", "base": "\(push.base)",
                                                         "commits": "\(push.commits.count)", "head": "\(head)"])
            let list = versions.map(String.init).joined(separator: ",")
            return Self.json(.ok, #"{"versions":[\#(list)],"head":\#(head),"found":true}"#)
        case .conflict(let head):
            context.logger.info("push conflict", metadata: ["scope": "\(scope)", "base": "\(push.base)", "head": "\(head)"])
            return Self.json(.conflict, #"{"head":\#(head)}"#)
        }
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
