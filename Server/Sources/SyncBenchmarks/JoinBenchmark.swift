import Chronicle
@_spi(SyncServer) import ChronicleSync
import Foundation
import ServerProcesses

/// A new device joining a big scope: `objects` items made by `objects`
/// commits and renamed by `objects` more, with a server snapshot
/// `tail` commits behind the head (as `--snapshot-interval` leaves it
/// between two snapshots).
///
/// The scope is seeded once through a server (raw pushes of 2,000
/// commits) that builds its snapshot, and kept in the database: a later
/// run with the same size finds it and only joins. Each round then starts a
/// device with an empty store and times, from `start()`, the first object
/// readable in its store, and everything downloaded.
enum JoinBenchmark {
    static let tail: UInt64 = 5_000
    static let batch: UInt64 = 2_000

    @MainActor
    static func run(_ environment: BenchEnvironment, rounds: Int, objects: Int) async throws {
        let total = UInt64(2 * objects)
        say("== join: a new device joins a scope of \(Stats.count(Double(objects))) objects (\(Stats.count(Double(total))) commits)")
        let scope = try await seed(environment, objects: objects)
        let server = try await ServerProcess(environment)
        defer { server.stop() }
        let raw = RawClient(base: server.base, token: environment.token)
        var firsts: [Double] = [], fulls: [Double] = [], pulls: [Double] = [], folds: [Double] = []
        for round in 1...rounds {
            let pullStart = Stats.now()
            let bootstrap = try await raw.pull(scope, after: 0, bootstrap: true)
            let pullTime = Stats.seconds(since: pullStart)
            // What the device must do with the snapshot at the least: decode it and fold it into a state.
            let foldStart = Stats.now()
            let snapshot = try Commit(encoded: bootstrap.pull.snapshot ?? [])
            let folded = try StoreState().applying(snapshot).state
            let foldTime = Stats.seconds(since: foldStart)
            guard folded.version == snapshot.version else { throw BenchError("the snapshot folds to version \(folded.version)") }
            let device = try BenchDevice(server: server.base, scope: scope, token: environment.token, types: [Item.self])
            let start = Stats.now()
            let files = Task.detached { await watchMirror(device.folder, since: start) }
            device.session.start()
            try await waitFor("the first object", timeout: 600) { device.store.object(ofType: Item.self, forPrimaryKey: 1) != nil }
            let first = Stats.seconds(since: start)
            try await withTimeout(1_200, "the full download") { try await device.session.waitUntilDownloaded() }
            let full = Stats.seconds(since: start)
            // An empty device writes the snapshot to its own journal first, then to its copy of the scope.
            files.cancel()
            let mirrorWritten = await files.value
            let count = device.store.objects(Item.self).count
            let renamed = device.store.object(ofType: Item.self, forPrimaryKey: objects)?.title
            try device.close()
            guard count == objects, renamed == "item \(objects), renamed" else {
                throw BenchError("the device has \(count) items (expected \(objects)); item \(objects) is titled \(renamed ?? "nothing")")
            }
            say("  round \(round): first object \(String(format: "%.2f s", first)), all \(Stats.count(Double(total))) commits \(String(format: "%.2f s", full));"
                  + " raw bootstrap pull \(String(format: "%.2f s", pullTime)) (\(Stats.count(Double(bootstrap.bytes / 1024))) KiB:"
                  + " snapshot at \(Stats.count(Double(snapshot.version))) + \(bootstrap.pull.commits.count) commits);"
                  + " decoding + folding the snapshot alone \(String(format: "%.2f s", foldTime));"
                  + " the snapshot in the device's copy of the scope at \(String(format: "%.2f s", mirrorWritten))")
            firsts.append(first)
            fulls.append(full)
            pulls.append(pullTime)
            folds.append(foldTime)
        }
        say("  median: first object \(String(format: "%.2f s", Stats.median(firsts))) (target ≤ 2 s), fully downloaded \(String(format: "%.2f s", Stats.median(fulls))),"
              + " raw bootstrap pull \(String(format: "%.2f s", Stats.median(pulls))), decoding + folding the snapshot alone \(String(format: "%.2f s", Stats.median(folds)))")
    }

    /// When the device's copy of the scope (`<journal>.sync/server.journal`)
    /// grew past a megabyte (the snapshot is written), in seconds after
    /// `start`. Polls every 2 ms until cancelled.
    static func watchMirror(_ folder: URL, since start: Int) async -> Double {
        let path = folder.appendingPathComponent("device.journal.sync/server.journal").path
        while !Task.isCancelled {
            let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
            if size > 1 << 20 { return Stats.seconds(since: start) }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return .nan
    }

    /// The scope of this size, seeded now unless an earlier run seeded it.
    static func seed(_ environment: BenchEnvironment, objects: Int) async throws -> String {
        let total = UInt64(2 * objects)
        let snapshotAt = total - min(tail, total / 2)
        var scope = "bench-join-\(objects)"
        // A server that builds one snapshot, when a push crosses `snapshotAt`.
        let server = try await ServerProcess(environment, extraArguments: ["--snapshot-interval", String(snapshotAt)])
        defer { server.stop() }
        let client = RawClient(base: server.base, token: environment.token)
        let head = try await client.pull(scope, after: 0, limit: 1).pull.head
        if head == total, try await client.pull(scope, after: snapshotAt - 1, limit: 1, bootstrap: true).pull.snapshot != nil {
            say("  (reusing the scope \(scope) an earlier run seeded)")
            return scope
        }
        if head != 0 {
            say("  (the scope \(scope) holds \(head) commits of an interrupted seeding: seeding a new one)")
            scope = BenchEnvironment.freshScope("join-\(objects)")
        }
        let start = Stats.now()
        var version: UInt64 = 0
        while version < total {
            // Up to the snapshot first, then (once it is built) the tail.
            let end = version < snapshotAt ? min(version + batch, snapshotAt) : min(version + batch, total)
            try await client.push(scope, base: version, ItemCommits.wire((version + 1)...end, objects: objects))
            version = end
            if version == snapshotAt {
                say("  seeded \(Stats.count(Double(version))) commits in \(String(format: "%.0f s", Stats.seconds(since: start))); waiting for the server's snapshot")
                let building = Stats.now()
                while try await client.pull(scope, after: snapshotAt - 1, limit: 1, bootstrap: true).pull.snapshot == nil {
                    if Stats.seconds(since: building) > 1_800 { throw BenchError("the server built no snapshot of \(scope) in 30 minutes") }
                    try await Task.sleep(for: .seconds(1))
                }
                say("  snapshot built in \(String(format: "%.0f s", Stats.seconds(since: building)))")
            }
        }
        say("  seeded \(scope) in \(String(format: "%.0f s", Stats.seconds(since: start)))")
        return scope
    }
}
