import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses

/// The object device A writes and device B observes.
final class Ping: Object {
    @Persisted(primaryKey: true) var id = 0
    /// When A made the commit: `Stats.now()` (both devices are processes of this machine).
    @Persisted var sentAt = 0
    @Persisted var count = 0
}
extension Ping: @unchecked Sendable {}

/// Wake-up latency through two servers: a commit on device A (a session on
/// server 1) wakes an observer on device B (a session on server 2).
///
/// - devices: A writes `Ping.sentAt` and `count` every `spacing`; B's
///   object observer (key path `sentAt`, delivered on the main actor)
///   records when it ran and the `count` it read. A commit's latency runs
///   from before A's write to the first call that read its `count` or a
///   later one (one sync commit can bring two of A's). Both devices are
///   stores with journal files, default durability, in this process. A
///   raw long-poll on server 2 times when each commit can be fetched there.
/// - server alone: a raw push through server 1 wakes a raw long-poll
///   waiting on server 2; the same path without the sessions, to show
///   where the time goes.
enum WakeBenchmark {
    static let spacing: Duration = .milliseconds(40)
    static let warmups = 10

    @MainActor
    static func run(_ environment: BenchEnvironment, rounds: Int, samples: Int) async throws {
        say("== wake: a commit on device A (server 1) wakes an observer on device B (server 2)")
        let one = try await ServerProcess(environment), two = try await ServerProcess(environment)
        defer { one.stop(); two.stop() }
        var devices: [Double] = [], fetchable: [Double] = [], server: [Double] = [], pushes: [Double] = []
        var fromCommit: [Double] = [], writes: [Double] = []
        for round in 1...rounds {
            let observed = try await devicesRound(environment, one, two, samples: samples)
            let raw = try await serverRound(environment, one, two, samples: samples)
            guard !observed.observer.isEmpty, !observed.atServer.isEmpty else { throw BenchError("device B observed nothing") }
            say("  round \(round): devices p50 \(Stats.ms(Stats.median(observed.observer))), p99 \(Stats.ms(Stats.percentile(observed.observer, 0.99)))"
                  + " (\(observed.observer.count) of \(samples) commits seen, in \(observed.calls) observer calls);"
                  + " fetchable on server 2 p50 \(Stats.ms(Stats.median(observed.atServer)));"
                  + " server alone p50 \(Stats.ms(Stats.median(raw.wake))), p99 \(Stats.ms(Stats.percentile(raw.wake, 0.99)))")
            devices += observed.observer
            fetchable += observed.atServer
            fromCommit += observed.fromCommit
            writes += observed.write
            server += raw.wake
            pushes += raw.push
        }
        say("  all rounds: devices p50 \(Stats.ms(Stats.median(devices))), p90 \(Stats.ms(Stats.percentile(devices, 0.9))), p99 \(Stats.ms(Stats.percentile(devices, 0.99))), max \(Stats.ms(devices.max()!)) over \(devices.count) commits"
              + " (target p50 ≤ 10 ms, p99 ≤ 50 ms)")
        say("  from A's write returning (its commit durable): p50 \(Stats.ms(Stats.median(fromCommit))), p90 \(Stats.ms(Stats.percentile(fromCommit, 0.9))), p99 \(Stats.ms(Stats.percentile(fromCommit, 0.99)));"
              + " A's durable write itself p50 \(Stats.ms(Stats.median(writes))), p99 \(Stats.ms(Stats.percentile(writes, 0.99))), max \(Stats.ms(writes.max()!))")
        say("  all rounds: A's write → fetchable on server 2 (a raw long-poll there) p50 \(Stats.ms(Stats.median(fetchable))), p90 \(Stats.ms(Stats.percentile(fetchable, 0.9))), p99 \(Stats.ms(Stats.percentile(fetchable, 0.99)))")
        say("  all rounds: server alone (raw push on 1 → long-poll answer on 2) p50 \(Stats.ms(Stats.median(server))), p99 \(Stats.ms(Stats.percentile(server, 0.99)));"
              + " push request → answer p50 \(Stats.ms(Stats.median(pushes))), p99 \(Stats.ms(Stats.percentile(pushes, 0.99)))")
    }

    /// What B's observer saw: each call's arrival time and the `count` it read.
    @MainActor
    final class Arrivals {
        var seen: [(count: Int, at: Int)] = []
    }

    /// One round's latencies, in seconds, one per commit of A: to B's observer
    /// (the first call that read this commit's `count` or a later one: a
    /// call that brings two commits at once answers both), and to a raw
    /// long-poll on server 2 (when the commit was there to fetch).
    struct DeviceRound {
        var observer: [Double] = []
        var atServer: [Double] = []
        /// To B's observer, from the moment A's write returned (its commit durable).
        var fromCommit: [Double] = []
        /// A's `store.write` (a durable local commit).
        var write: [Double] = []
        /// Observer calls: fewer than commits when some arrived together.
        var calls = 0
    }

    @MainActor
    static func devicesRound(_ environment: BenchEnvironment, _ one: ServerProcess, _ two: ServerProcess, samples: Int) async throws -> DeviceRound {
        let scope = BenchEnvironment.freshScope("wake")
        let a = try BenchDevice(server: one.base, scope: scope, token: environment.token, types: [Ping.self])
        let b = try BenchDevice(server: two.base, scope: scope, token: environment.token, types: [Ping.self])
        defer { try? a.close(); try? b.close() }
        a.session.start()
        b.session.start()
        try a.store.write { a.store.create(Ping.self, value: ["id": 1]) }
        try await withTimeout(60, "device A's first upload") { try await a.session.waitUntilUploaded() }
        try await waitFor("device B's first download", timeout: 60) { b.store.object(ofType: Ping.self, forPrimaryKey: 1) != nil }
        let arrivals = Arrivals()
        let observed = b.store.object(ofType: Ping.self, forPrimaryKey: 1)!
        let token = observed.observe(keyPaths: ["sentAt"]) { change in
            let now = Stats.now()
            guard case .change(let object, _) = change else { return }
            arrivals.seen.append((object.count, now))
        }
        defer { token.invalidate() }
        // A raw long-poll on server 2 alongside B: when each commit could be fetched there.
        let watcher = Task { try await watch(RawClient(base: two.base, token: environment.token), scope: scope, after: 1) }
        defer { watcher.cancel() }
        let written = a.store.object(ofType: Ping.self, forPrimaryKey: 1)!
        var sent: [Int] = [0], writes: [Double] = [0]
        for count in 1...(warmups + samples) {
            let now = Stats.now()
            try a.store.write {
                written.count = count
                written.sentAt = now
            }
            sent.append(now)
            writes.append(Stats.seconds(since: now))
            try await Task.sleep(for: spacing)
        }
        // Late arrivals: up to two seconds.
        try? await waitFor("the last arrivals", timeout: 2) { (arrivals.seen.last?.count ?? 0) >= warmups + samples }
        watcher.cancel()
        let fetchable = (try? await watcher.value) ?? [:]
        var round = DeviceRound()
        round.calls = arrivals.seen.filter { $0.count > warmups }.count
        for count in (warmups + 1)...(warmups + samples) {
            if let call = arrivals.seen.first(where: { $0.count >= count }) {
                round.observer.append(Double(call.at - sent[count]) / 1e9)
                round.fromCommit.append(Double(call.at - sent[count]) / 1e9 - writes[count])
            }
            if let at = fetchable[count] { round.atServer.append(Double(at - sent[count]) / 1e9) }
            round.write.append(writes[count])
        }
        return round
    }

    /// Long-polls `scope` on a server until cancelled; returns when each
    /// `Ping.count` value could be fetched there.
    static func watch(_ client: RawClient, scope: String, after: UInt64) async throws -> [Int: Int] {
        var arrivals: [Int: Int] = [:]
        var version = after
        while !Task.isCancelled {
            guard let pulled = try? await client.pull(scope, after: version, wait: 5) else { break }
            let now = Stats.now()
            for wire in pulled.pull.commits {
                let commit = try Commit(encoded: wire.payload)
                version = max(version, commit.version)
                for case .set(_, _, _, .int(let value)) in commit.events where value < 1_000_000 {
                    arrivals[Int(value)] = now
                }
            }
        }
        return arrivals
    }

    static func serverRound(_ environment: BenchEnvironment, _ one: ServerProcess, _ two: ServerProcess, samples: Int) async throws -> (wake: [Double], push: [Double]) {
        let scope = BenchEnvironment.freshScope("wake-raw")
        let writer = RawClient(base: one.base, token: environment.token)
        let reader = RawClient(base: two.base, token: environment.token)
        var head = try await writer.push(scope, base: 0, ItemCommits.wire(1...1, objects: 1_000_000))
        var wake: [Double] = [], push: [Double] = []
        for sample in 0..<(warmups + samples) {
            let after = head
            let poll = Task {
                let pulled = try await reader.pull(scope, after: after, wait: 10)
                return (pulled.pull, Stats.now())
            }
            // Give the long-poll time to reach server 2 and wait there.
            try await Task.sleep(for: .milliseconds(15))
            let start = Stats.now()
            head = try await writer.push(scope, base: head, ItemCommits.wire((head + 1)...(head + 1), objects: 1_000_000))
            let answered = Stats.now()
            let (pulled, woken) = try await poll.value
            guard pulled.commits.count == 1 else { throw BenchError("the long-poll on server 2 answered without the commit") }
            if sample >= warmups {
                wake.append(Double(woken - start) / 1e9)
                push.append(Double(answered - start) / 1e9)
            }
        }
        return (wake, push)
    }
}
