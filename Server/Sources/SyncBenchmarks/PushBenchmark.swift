import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses

/// Commits per second pushed through one server, and through two.
///
/// - raw: writers push pre-encoded batches of `Item` creations, each writer
///   to a scope of its own (a scope takes one append at a time: its order is
///   one sequence), one push after the other. With several writers they
///   go to one server, or alternate between two.
/// - session: a device with commits made offline starts its session; the
///   time until `waitUntilUploaded()` returns (rebase, encoding, one push).
enum PushBenchmark {
    static func run(_ environment: BenchEnvironment, rounds: Int, commits: Int) async throws {
        say("== push: commits/s through one server and through two (batched)")
        let one = try await ServerProcess(environment), two = try await ServerProcess(environment)
        defer { one.stop(); two.stop() }
        let shapes: [(name: String, writers: Int, batch: Int, servers: [ServerProcess])] = [
            ("1 writer, batches of 100, 1 server", 1, 100, [one]),
            ("1 writer, batches of 1,000, 1 server", 1, 1_000, [one]),
            ("4 writers, batches of 1,000, 1 server", 4, 1_000, [one]),
            ("4 writers, batches of 1,000, 2 servers", 4, 1_000, [one, two]),
        ]
        var results = [[Double]](repeating: [], count: shapes.count)
        var session: [Double] = []
        // Alternating rounds: a drift of the machine's speed slows every shape alike.
        for _ in 1...rounds {
            for (index, shape) in shapes.enumerated() {
                results[index].append(try await raw(environment, servers: shape.servers, writers: shape.writers,
                                                    batch: shape.batch, commits: commits))
            }
            session.append(try await throughSession(environment, one, commits: sessionCommits(commits)))
        }
        for (index, shape) in shapes.enumerated() {
            say("  raw, \(shape.name): \(Stats.count(Stats.median(results[index]))) commits/s"
                  + " (rounds: \(results[index].map { Stats.count($0) }.joined(separator: ", ")))")
        }
        say("  session, \(Stats.count(Double(sessionCommits(commits)))) offline commits, 1 server: \(Stats.count(Stats.median(session))) commits/s"
              + " (rounds: \(session.map { Stats.count($0) }.joined(separator: ", ")))")
        say("  (target ≥ 5,000 commits/s through one server, more with two)")
    }

    /// The offline commits of the session measurement: half of what one
    /// push may carry, as a session sends every pending commit in one push.
    static func sessionCommits(_ commits: Int) -> Int { min(commits, SyncWire.maximumCommitsPerPush / 2) }

    /// Commits per second of `writers` writers pushing `commits` commits in all.
    static func raw(_ environment: BenchEnvironment, servers: [ServerProcess], writers: Int, batch: Int, commits: Int) async throws -> Double {
        let per = commits / writers
        // Encoded before the clock starts: this measures the server, not the encoder.
        let plans: [(scope: String, client: RawClient, bodies: [Data])] = (0..<writers).map { writer in
            let bodies = stride(from: 0, to: per, by: batch).map { start in
                let last = min(start + batch, per)
                return RawClient.body(base: UInt64(start), ItemCommits.wire(UInt64(start + 1)...UInt64(last), objects: per))
            }
            return (BenchEnvironment.freshScope("push"), RawClient(base: servers[writer % servers.count].base, token: environment.token), bodies)
        }
        let start = Stats.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for plan in plans {
                group.addTask {
                    for body in plan.bodies { try await plan.client.push(plan.scope, body: body) }
                }
            }
            try await group.waitForAll()
        }
        return Double(per * writers) / Stats.seconds(since: start)
    }

    /// Commits per second of a device uploading `commits` commits it made offline.
    @MainActor
    static func throughSession(_ environment: BenchEnvironment, _ server: ServerProcess, commits: Int) async throws -> Double {
        let device = try BenchDevice(server: server.base, scope: BenchEnvironment.freshScope("push-session"),
                                     token: environment.token, types: [Item.self], durability: .none)
        defer { try? device.close() }
        for id in 1...commits {
            try device.store.write { device.store.create(Item.self, value: ["id": id]) }
        }
        let start = Stats.now()
        device.session.start()
        try await withTimeout(300, "the session's upload") { try await device.session.waitUntilUploaded() }
        return Double(commits) / Stats.seconds(since: start)
    }
}
