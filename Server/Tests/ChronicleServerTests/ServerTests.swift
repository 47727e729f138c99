import Chronicle
@_spi(SyncServer) import ChronicleSync
import ChronicleServerCore
import Foundation
import ServerProcesses
import Testing

/// The server through HTTP, as clients use it: each test starts its own
/// `chronicle-server` process(es) and stops them.
@Suite("chronicle-server", .serialized)
struct ServerTests {
    /// Runs `body` against a fresh server, then stops it.
    static func withServer<T>(_ token: String? = Harness.writer, _ body: (API) async throws -> T) async throws -> T {
        let server = try await ServerProcess()
        defer { server.stop() }
        return try await body(API(base: server.base, token: token))
    }

    @Test func helpAndUsageErrors() throws {
        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
            let process = Process()
            process.executableURL = Harness.binary
            process.arguments = arguments
            process.environment = environment
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        let help = try run(["--help"])
        #expect(help.0 == 0)
        #expect(help.1.contains("USAGE") && help.1.contains("--database-url") && help.1.contains("reverse proxy"))
        let missing = try run([])
        #expect(missing.0 == 64)
        #expect(missing.1.contains("--database-url"))
        let badPort = try run(["--database-url", Harness.databaseURL, "--tokens", "/x", "--port", "http"])
        #expect(badPort.0 == 64 && badPort.1.contains("--port"))
        let badURL = try run(["--tokens", "/x"], environment: ["CHRONICLE_DATABASE_URL": "mysql://x"])
        #expect(badURL.0 == 64 && badURL.1.contains("postgres://"))
        let noTokens = try run(["--database-url", Harness.databaseURL, "--tokens", "/nonexistent/tokens"])
        #expect(noTokens.0 == 64 && noTokens.1.contains("token file"))
    }

    @Test func health() async throws {
        let reply = try await Self.withServer(nil) { try await $0.request("GET", "/health") }
        #expect(reply.status == 200)
        #expect(reply.json?["status"] as? String == "ok")
    }

    @Test func pushThenPullRoundTripsTheJournalEncoding() async throws {
        try await Self.withServer { api in
            let scope = Harness.freshScope()
            let commits = Commits.wire(1...3)
            let pushed = try await api.push(scope, base: 0, commits)
            #expect(pushed.status == 200)
            #expect(pushed.json?["versions"] as? [Int] == [1, 2, 3])
            #expect(pushed.json?["head"] as? Int == 3)

            let pulled = try #require(try await api.pull(scope, after: 0).pull)
            #expect(pulled.head == 3)
            #expect(pulled.commits == commits)
            #expect(try pulled.commits.map { try Commit(encoded: $0.payload) } == (1...3).map(Commits.commit))
            let tail = try #require(try await api.pull(scope, after: 2).pull)
            #expect(tail.commits == [commits[2]])
            let none = try #require(try await api.pull(scope, after: 3).pull)
            #expect(none.commits.isEmpty && none.head == 3)
        }
    }

    @Test func aRetriedPushReturnsTheVersionsFirstAssigned() async throws {
        try await Self.withServer { api in
            let scope = Harness.freshScope()
            let first = Commits.wire(1...2)
            let pushed = try await api.push(scope, base: 0, first)
            #expect(pushed.status == 200)
            #expect(pushed.json?["found"] == nil)
            let second = Commits.wire(3...3)
            #expect(try await api.push(scope, base: 2, second).status == 200)
            // The first push again, as a client that never saw its answer retries it.
            let retried = try await api.push(scope, base: 0, first)
            #expect(retried.status == 200)
            #expect(retried.json?["versions"] as? [Int] == [1, 2])
            #expect(retried.json?["head"] as? Int == 3)
            // Found, not appended: the payloads stored are the first try's.
            #expect(retried.json?["found"] as? Bool == true)
            let pulled = try #require(try await api.pull(scope, after: 0).pull)
            #expect(pulled.commits == first + second)
            // Half old, half new ids (an earlier try landed, and the client
            // has more since): a conflict with the head, nothing appended.
            let mixed = [SyncWire.WireCommit(id: second[0].id, payload: Commits.commit(4).encoded())] + Commits.wire(5...5)
            let refused = try await api.push(scope, base: 3, mixed)
            #expect(refused.status == 409)
            #expect(refused.json?["head"] as? Int == 3)
            #expect(try #require(try await api.pull(scope, after: 0).pull).head == 3)
        }
    }

    @Test func aPushOnAnOldHeadIsRefusedWithTheHead() async throws {
        try await Self.withServer { api in
            let scope = Harness.freshScope()
            #expect(try await api.push(scope, base: 0, Commits.wire(1...2)).status == 200)
            // Based on version 1, but the scope is at 2.
            let stale = try await api.push(scope, base: 1, Commits.wire(2...2))
            #expect(stale.status == 409)
            #expect(stale.json?["head"] as? Int == 2)
            // Ahead of the scope: refused the same way.
            let ahead = try await api.push(scope, base: 5, Commits.wire(6...6))
            #expect(ahead.status == 409)
            #expect(try #require(try await api.pull(scope, after: 0).pull).commits.count == 2)
        }
    }

    @Test func concurrentPushesAtOneBaseAcceptExactlyOne() async throws {
        try await Self.withServer { api in
            let scope = Harness.freshScope()
            #expect(try await api.push(scope, base: 0, Commits.wire(1...1)).status == 200)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 { group.addTask { try await api.push(scope, base: 1, Commits.wire(2...2)).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 409 }.count == 7)
            #expect(try #require(try await api.pull(scope, after: 0).pull).head == 2)
        }
    }

    @Test func requestsWithoutAValidTokenAreRefusedAndTouchNothing() async throws {
        try await Self.withServer { api in
            let scope = Harness.freshScope()
            #expect(try await api.push(scope, base: 0, Commits.wire(1...1)).status == 200)

            // No token, a wrong token: 401, for reads and writes.
            #expect(try await api.pull(scope, after: 0, token: .some(nil)).status == 401)
            #expect(try await api.push(scope, base: 1, Commits.wire(2...2), token: .some(nil)).status == 401)
            #expect(try await api.pull(scope, after: 0, token: "not-a-token").status == 401)
            #expect(try await api.push(scope, base: 1, Commits.wire(2...2), token: "not-a-token").status == 401)
            let malformedHeader = try await api.request("GET", "/v1/scopes/\(scope)/commits", token: .some(nil))
            #expect(malformedHeader.status == 401)

            // A read-only token reads but may not push.
            #expect(try await api.pull(scope, after: 0, token: Harness.reader).status == 200)
            #expect(try await api.push(scope, base: 1, Commits.wire(2...2), token: Harness.reader).status == 403)

            // A token for another scope: 403 both ways.
            #expect(try await api.pull(scope, after: 0, token: Harness.alphaWriter).status == 403)
            #expect(try await api.push(scope, base: 1, Commits.wire(2...2), token: Harness.alphaWriter).status == 403)
            #expect(try await api.push(Harness.alphaScope, base: 0, Commits.wire(1...1), token: Harness.alphaWriter).status == 200)

            // None of them appended anything.
            #expect(try #require(try await api.pull(scope, after: 0).pull).head == 1)
        }
    }

    @Test func malformedRequestsAre400AndTheServerGoesOn() async throws {
        try await Self.withServer { api in
            let scope = Harness.freshScope()
            #expect(try await api.request("POST", "/v1/scopes/\(scope)/commits", body: []).status == 400)
            #expect(try await api.request("POST", "/v1/scopes/\(scope)/commits", body: [1, 0, 1, 0xFF]).status == 400)
            #expect(try await api.request("POST", "/v1/scopes/\(scope)/commits", body: Array("hello".utf8)).status == 400)
            // Well framed, but the payload is no commit.
            let garbage = SyncWire.WireCommit(id: UUID(), payload: [9, 9, 9])
            #expect(try await api.push(scope, base: 0, [garbage]).status == 400)
            // A real commit with the wrong version for its place.
            let misplaced = SyncWire.WireCommit(id: UUID(), payload: Commits.commit(7).encoded())
            #expect(try await api.push(scope, base: 0, [misplaced]).status == 400)
            // Bad query parameters and scope names.
            #expect(try await api.request("GET", "/v1/scopes/\(scope)/commits?after=abc").status == 400)
            #expect(try await api.request("GET", "/v1/scopes/\(scope)/commits?after=-1").status == 400)
            #expect(try await api.request("GET", "/v1/scopes/\(scope)/commits?wait=3600").status == 400)
            #expect(try await api.request("GET", "/v1/scopes/a%20b/commits").status == 400)
            // Nothing was appended, and the server still serves.
            let pulled = try await api.pull(scope, after: 0)
            #expect(pulled.status == 200 && pulled.pull?.head == 0)
        }
    }

    @Test func bodiesOverTheLimitAreRefused() async throws {
        let server = try await ServerProcess(extraArguments: ["--max-body-bytes", "1000"])
        defer { server.stop() }
        let api = API(base: server.base, token: Harness.writer)
        let scope = Harness.freshScope()
        let big = SyncWire.WireCommit(id: UUID(), payload: Commit(version: 1, timestamp: Date(), label: String(repeating: "x", count: 5000), events: [.defineType(Commits.item)]).encoded())
        #expect(try await api.push(scope, base: 0, [big]).status == 413)
        #expect(try await api.push(scope, base: 0, Commits.wire(1...1)).status == 200)
    }

    @Test func aCommitThroughOneServerWakesALongPollOnAnother() async throws {
        let a = try await ServerProcess()
        let b = try await ServerProcess()
        defer { a.stop(); b.stop() }
        let scope = Harness.freshScope()
        let onA = API(base: a.base, token: Harness.writer)
        let onB = API(base: b.base, token: Harness.writer)
        #expect(try await onA.push(scope, base: 0, Commits.wire(1...1)).status == 200)
        // Let the long-poll on B start waiting, then push through A.
        let started = ContinuousClock.now
        let waiting = Task { try await onB.pull(scope, after: 1, wait: 30) }
        try await Task.sleep(for: .milliseconds(300))
        let pushed = Commits.wire(2...2)
        #expect(try await onA.push(scope, base: 1, pushed).status == 200)
        let pushedAt = ContinuousClock.now
        let reply = try await waiting.value
        let woke = ContinuousClock.now
        #expect(reply.pull?.commits == pushed)
        // Woken by the notification, well before the server's own fallback poll (2 s) or the wait (30 s).
        #expect(woke - pushedAt < .milliseconds(1500), "woken \(woke - pushedAt) after the push")
        #expect(woke - started < .seconds(5))
        // A wait with nothing to wake it lasts its time and answers empty.
        let quiet = ContinuousClock.now
        let empty = try await onB.pull(scope, after: 2, wait: 1)
        #expect(empty.pull?.commits.isEmpty == true && empty.pull?.head == 2)
        #expect(ContinuousClock.now - quiet >= .milliseconds(900))
    }

    @Test func aNewDeviceBootstrapsFromASnapshotPlusTheCommitsAfterIt() async throws {
        let server = try await ServerProcess(extraArguments: ["--snapshot-interval", "5"])
        defer { server.stop() }
        let api = API(base: server.base, token: Harness.writer)
        let scope = Harness.freshScope()
        #expect(try await api.push(scope, base: 0, Commits.wire(1...6)).status == 200)
        #expect(try await api.push(scope, base: 6, Commits.wire(7...11)).status == 200)
        // Snapshots are built off the request path, of the head when the
        // build runs: wait for the one at 11 before pushing 12 (pushed
        // first, a slow build would snapshot 12).
        var pulled: SyncWire.Pull?
        for _ in 0..<100 {
            pulled = try await api.pull(scope, after: 0, bootstrap: true).pull
            if let snapshot = pulled?.snapshot, try Commit(encoded: snapshot).version == 11 { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try Commit(encoded: try #require(pulled?.snapshot)).version == 11)
        #expect(try await api.push(scope, base: 11, Commits.wire(12...12)).status == 200)
        let bootstrap = try #require(try await api.pull(scope, after: 0, bootstrap: true).pull)
        let snapshot = try Commit(encoded: try #require(bootstrap.snapshot))
        #expect(snapshot.version == 11)
        #expect(bootstrap.commits.count == 1)
        var state = try StoreState().applying(snapshot).state
        for commit in bootstrap.commits { state = try state.applying(try Commit(encoded: commit.payload)).state }
        var replayed = StoreState()
        for version in UInt64(1)...12 { replayed = try replayed.applying(Commits.commit(version)).state }
        #expect(state.version == 12)
        #expect(state.isContentEqual(replayed))
        // Without bootstrap, every commit.
        #expect(try await api.pull(scope, after: 0).pull?.commits.count == 12)
    }
}
