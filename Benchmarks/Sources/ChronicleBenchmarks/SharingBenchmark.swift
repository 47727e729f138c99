#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Chronicle
import Foundation
import Synchronization

final class Beat: Object {
    @Persisted(primaryKey: true) var id = 0
    /// When the commit was made: `CLOCK_MONOTONIC` nanoseconds, which every
    /// process of the machine reads alike.
    @Persisted var sentAt = 0
    @Persisted var count = 0
}
extension Beat: @unchecked Sendable {}

/// Several processes on one store (issue 30), only when named (`sharing`):
/// - wake: a commit in this process wakes an object observer in another
///   process; p50 / p99 of commit-to-callback, over single commits spaced apart;
/// - durable commits: four processes, one writer each, against one process
///   with four writer threads, `Durability.full`, the same number of commits;
///   `rounds` rounds (at least 5), the two sides alternating, each round's
///   ratio printed: on a shared machine only the ratio of two runs made
///   back to back says much.
enum SharingBenchmark {
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    static func open(_ url: URL, durability: Durability) throws -> Store {
        try Store(configuration: .init(fileURL: url, durability: durability, objectTypes: [Beat.self]))
    }

    static func child(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["--sharing-child"] + arguments
        return process
    }

    static func run(quick: Bool, rounds: Int) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try wake(directory.appendingPathComponent("wake.journal"), samples: quick ? 50 : 300)
        try throughput(directory, commits: quick ? 200 : 4_000, rounds: quick ? 1 : rounds)
    }

    // MARK: Wake-up latency

    static func wake(_ url: URL, samples: Int) throws {
        let store = try open(url, durability: .none)
        try store.write { store.create(Beat.self, value: ["id": 1]) }
        let observer = child(["observe", url.path, String(samples)])
        let output = Pipe()
        observer.standardOutput = output
        try observer.run()
        // The observer says "ready" once it observes; then one commit every 5 ms.
        let reader = output.fileHandleForReading
        var text = ""
        while !text.contains("ready\n") { text += String(decoding: reader.availableData, as: UTF8.self) }
        let beat = store.object(ofType: Beat.self, forPrimaryKey: 1)!
        for count in 1...samples {
            try store.write {
                beat.count = count
                beat.sentAt = now()
            }
            usleep(5_000)
        }
        let rest = String(decoding: reader.readDataToEndOfFile(), as: UTF8.self)
        observer.waitUntilExit()
        let latencies = rest.split(separator: "\n").compactMap { Int($0) }.map { Duration.nanoseconds($0) }
        guard !latencies.isEmpty else { print("wake: the observer reported nothing"); return }
        print(String(format: "commit in A → observer in B: p50 %.0f µs, p99 %.0f µs (%d of %d commits observed)",
                     Measure.seconds(Measure.median(latencies)) * 1e6, Measure.seconds(Measure.percentile(latencies, 0.99)) * 1e6,
                     latencies.count, samples))
    }

    // MARK: Durable throughput

    static func throughput(_ directory: URL, commits: Int, rounds: Int) throws {
        func timed(processes: Int, threads: Int, round: Int) throws -> Duration {
            let url = directory.appendingPathComponent("commits-\(processes)x\(threads)-\(round).journal")
            try open(url, durability: .full).close()
            let per = commits / (processes * threads)
            let children = (0..<processes).map { index in
                child(["commit", url.path, String(index), String(threads), String(per)])
            }
            let inputs = children.map { _ in Pipe() }, outputs = children.map { _ in Pipe() }
            for (index, process) in children.enumerated() {
                process.standardInput = inputs[index]
                process.standardOutput = outputs[index]
                try process.run()
            }
            for output in outputs {
                var text = ""
                while !text.contains("ready\n") { text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self) }
            }
            // Timed from "go" to the last child's "done" (written after its
            // last commit returned), read from its pipe: `waitUntilExit()`
            // polls every 50 ms on Linux, which made every figure a multiple of it.
            let clock = ContinuousClock()
            let start = clock.now
            for input in inputs { input.fileHandleForWriting.write(Data("go\n".utf8)) }
            for output in outputs {
                var text = ""
                while !text.contains("done\n") {
                    let data = output.fileHandleForReading.availableData
                    guard !data.isEmpty else { break }
                    text += String(decoding: data, as: UTF8.self)
                }
            }
            let elapsed = clock.now - start
            for process in children { process.waitUntilExit() }
            let store = try open(url, durability: .none)
            precondition(store.version == UInt64(1 + processes * threads * per + processes * threads),
                         "lost commits: \(store.version)")
            return elapsed
        }
        var shared: [Duration] = [], threaded: [Duration] = []
        for round in 0..<rounds {
            shared.append(try timed(processes: 4, threads: 1, round: round))
            threaded.append(try timed(processes: 1, threads: 4, round: round))
        }
        let perSecond = { (durations: [Duration]) in Double(commits) / Measure.seconds(Measure.median(durations)) }
        // Each round's own ratio: four processes' throughput over four threads'.
        let ratios = zip(shared, threaded).map { Measure.seconds($1) / Measure.seconds($0) }
        let median = ratios.sorted()[ratios.count / 2]
        print(String(format: "%d durable commits: 4 processes × 1 writer %.0f commits/s, 1 process × 4 writers %.0f commits/s (medians of %d alternating rounds); ratio %.0f%%, median of the rounds' ",
                     commits, perSecond(shared), perSecond(threaded), rounds, median * 100)
              + ratios.map { String(format: "%.0f%%", $0 * 100) }.joined(separator: ", "))
    }

    // MARK: Children

    /// `observe PATH SAMPLES`: prints "ready", then one latency (ns) a line
    /// per observed commit, and exits after `SAMPLES` of them.
    /// `commit PATH INDEX THREADS COUNT`: prints "ready", waits for a line,
    /// then each of `THREADS` threads makes `COUNT` durable commits, and
    /// prints "done" once they all returned.
    static func runChild(_ arguments: [String]) throws -> Never {
        switch arguments.first {
        case "observe":
            let url = URL(fileURLWithPath: arguments[1])
            let samples = Int(arguments[2])!
            let store = try open(url, durability: .none)
            let beat = store.object(ofType: Beat.self, forPrimaryKey: 1)!
            let seen = Mutex(0)
            let done = DispatchSemaphore(value: 0)
            // A stream on a task of its own, not an `observe` callback: this
            // thread blocks on the semaphore, so main-actor deliveries (the
            // callbacks' default) would never run.
            let changes = try beat.changes(keyPaths: ["sentAt"])
            let observer = Task.detached {
                for await change in changes {
                    let received = now()
                    guard case .change(let object, _) = change else { continue }
                    FileHandle.standardOutput.write(Data("\(received - object.sentAt)\n".utf8))
                    if seen.withLock({ count in count += 1; return count }) == samples { done.signal() }
                }
            }
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            _ = done.wait(timeout: .now() + 120)
            observer.cancel()
            withExtendedLifetime(store) {}
            exit(0)
        case "commit":
            let url = URL(fileURLWithPath: arguments[1])
            let (index, threads, count) = (Int(arguments[2])!, Int(arguments[3])!, Int(arguments[4])!)
            let store = try open(url, durability: .full)
            for thread in 0..<threads {
                try store.write { store.create(Beat.self, value: ["id": 100 * index + thread]) }
            }
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            _ = readLine()
            let group = DispatchGroup()
            for thread in 0..<threads {
                group.enter()
                Thread {
                    let beat = store.object(ofType: Beat.self, forPrimaryKey: 100 * index + thread)!
                    for _ in 0..<count { try! store.write { beat.count += 1 } }
                    group.leave()
                }.start()
            }
            group.wait()
            FileHandle.standardOutput.write(Data("done\n".utf8))
            exit(0)
        default:
            fatalError("unknown sharing child \(arguments)")
        }
    }
}
