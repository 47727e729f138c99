import Foundation

// chronicle-sync-bench: the sync targets of issue 29, measured on real
// chronicle-server processes and a real PostgreSQL. See Benchmarks/README.md ("Sync").

let usage = """
usage: chronicle-sync-bench [options] [wake] [push] [join]

Starts chronicle-server processes itself (on 127.0.0.1, free ports) against
the PostgreSQL database given, and measures:
  wake   a commit on device A (server 1) waking an observer on device B (server 2)
  push   commits/s pushed through one server and through two
  join   a new device joining a scope of --join-objects objects (twice as many commits)
With no group, all three run.

OPTIONS
  --database-url URL    default: $CHRONICLE_DATABASE_URL, else the one scripts/start-postgres prints
  --server PATH         chronicle-server binary (default: next to this one)
  --rounds N            rounds of each measurement (default 3)
  --samples N           wake-ups per round (default 200)
  --push-commits N      commits per push measurement (default 20000)
  --join-objects N      objects of the join scope (default 1000000; seeded once, kept in the database)
  --quick               a smoke run: 2 rounds, 30 samples, 5,000 commits, 10,000 objects
"""

var groups: [String] = []
var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
var quick = false
while let argument = arguments.next() {
    switch argument {
    case "-h", "--help":
        say(usage)
        exit(0)
    case "--quick":
        quick = true
    case "--database-url", "--server", "--rounds", "--samples", "--push-commits", "--join-objects":
        guard let value = arguments.next() else {
            FileHandle.standardError.write(Data("chronicle-sync-bench: \(argument) needs a value\n".utf8))
            exit(64)
        }
        options[argument] = value
    case "wake", "push", "join":
        groups.append(argument)
    default:
        FileHandle.standardError.write(Data("chronicle-sync-bench: unknown argument '\(argument)'\n\n\(usage)\n".utf8))
        exit(64)
    }
}

@MainActor func number(_ flag: String, _ fallback: Int) -> Int {
    guard let text = options[flag] else { return fallback }
    guard let value = Int(text), value > 0 else {
        FileHandle.standardError.write(Data("chronicle-sync-bench: \(flag) must be a positive number, not '\(text)'\n".utf8))
        exit(64)
    }
    return value
}

let rounds = number("--rounds", quick ? 2 : 3)
let samples = number("--samples", quick ? 30 : 200)
let pushCommits = number("--push-commits", quick ? 5_000 : 20_000)
let joinObjects = number("--join-objects", quick ? 10_000 : 1_000_000)
let databaseURL = options["--database-url"] ?? ProcessInfo.processInfo.environment["CHRONICLE_DATABASE_URL"]
    ?? "postgres://chronicle:chronicle@127.0.0.1:5432/chronicle_test"
let serverBinary = options["--server"].map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("chronicle-server")
if groups.isEmpty { groups = ["wake", "push", "join"] }

#if DEBUG
say("warning: a debug build; the targets are for release builds (swift build -c release)")
#endif
say("chronicle-sync-bench, \(ISO8601DateFormatter().string(from: Date())), \(ProcessInfo.processInfo.activeProcessorCount) cores, database \(databaseURL)")

do {
    let environment = try BenchEnvironment(serverBinary: serverBinary, databaseURL: databaseURL)
    defer { try? FileManager.default.removeItem(at: environment.tokenFile) }
    for group in groups {
        switch group {
        case "wake": try await WakeBenchmark.run(environment, rounds: rounds, samples: samples)
        case "push": try await PushBenchmark.run(environment, rounds: rounds, commits: pushCommits)
        default: try await JoinBenchmark.run(environment, rounds: rounds, objects: joinObjects)
        }
    }
} catch {
    FileHandle.standardError.write(Data("chronicle-sync-bench: \(error)\n".utf8))
    exit(1)
}
