// Chronicle's benchmarks, side by side with GRDB. Build in release:
//   swift run -c release --package-path Benchmarks ChronicleBenchmarks [--quick] [--rounds N] [group...]
// With no group, every side-by-side and Chronicle-only group runs (not
// `journal`, `replay`, `sharing`, `scale` or `memory`, which run in process and only when named). Each group runs in child processes
// of this executable, one per side (see Harness.swift).
import Foundation

let workloads: [Workload] = [
    PeerWorkloads.w1, PeerWorkloads.w1v, PeerWorkloads.w2, PeerWorkloads.w3, PeerWorkloads.w3v, PeerWorkloads.w4,
    ObservationWorkload.w5, PeerWorkloads.w6,
    ModelBenchmarks.commits, ModelBenchmarks.reads, ModelBenchmarks.projections,
    CompactionBenchmark.workload,
]

var arguments = Array(CommandLine.arguments.dropFirst())
var options = Options(directory: FileManager.default.temporaryDirectory)
if let index = arguments.firstIndex(of: "--quick") {
    options.quick = true
    arguments.remove(at: index)
}
if let index = arguments.firstIndex(of: "--rounds"), index + 1 < arguments.count {
    guard let rounds = Int(arguments[index + 1]), rounds >= 1 else {
        print("--rounds needs a positive count, not \(arguments[index + 1])")
        exit(64)
    }
    options.rounds = rounds
    arguments.removeSubrange(index...(index + 1))
}
var scaleSizes: [Int]?
if let index = arguments.firstIndex(of: "--sizes"), index + 1 < arguments.count {
    let sizes = arguments[index + 1].split(separator: ",").compactMap { Int($0) }
    guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else {
        print("--sizes needs positive counts separated by commas, not \(arguments[index + 1])")
        exit(64)
    }
    scaleSizes = sizes
    arguments.removeSubrange(index...(index + 1))
}
var tenMillion = false
if let index = arguments.firstIndex(of: "--10m") {
    tenMillion = true
    arguments.remove(at: index)
}
if let index = arguments.firstIndex(of: "--dir"), index + 1 < arguments.count {
    options.directory = URL(fileURLWithPath: arguments[index + 1])
    arguments.removeSubrange(index...(index + 1))
}

if arguments.first == "--probe" {
    try OpenProbe.run(Array(arguments.dropFirst()))
    exit(0)
}

if arguments.first == "--memory-child" {
    try MemoryProbe.runChild(Array(arguments.dropFirst()))
}

if arguments.first == "--scale-child" {
    try ScaleCurve.runChild(Array(arguments.dropFirst()))
}

if arguments.first == "--sharing-child" {
    try SharingBenchmark.runChild(Array(arguments.dropFirst()))
}

if arguments.first == "--child", arguments.count == 3 {
    guard let workload = workloads.first(where: { $0.id == arguments[1] }) else { fatalError("unknown workload \(arguments[1])") }
    try Harness.runChild(workload, side: arguments[2], options: options)
    exit(0)
}

if arguments.contains("-h") || arguments.contains("--help") {
    print("usage: ChronicleBenchmarks [--quick] [--rounds N] [--10m] [--sizes N,N] [group...]\n  --rounds N  run each group's sides N times, alternating; report the medians and each round's ratio\n  --10m, --sizes N,N  the scale curve's sizes\ngroups:")
    for workload in workloads { print("  \(workload.id.padding(toLength: 12, withPad: " ", startingAt: 0)) \(workload.summary)") }
    print("  journal      (only when named) journal append/read throughput, in process")
    print("  replay       (only when named) open a 1M-event journal with/without a checkpoint; frozen(at:)")
    print("  sharing      (only when named) several processes on one store: commit-to-observer wake-up, durable commits")
    print("  memory       (only when named) resident memory per object for each value kind (200k objects of one property, folded)")
    print("  scale        (only when named) 100k and 1M players (10M with --10m; other sizes with --sizes N,N): open with/without a checkpoint, read one/all, resident memory")
    exit(0)
}
let known = Set(workloads.map(\.id) + ["journal", "replay", "sharing", "scale", "memory"])
let unknown = arguments.filter { !known.contains($0) }
guard unknown.isEmpty else {
    print("unknown benchmark group(s): \(unknown.joined(separator: ", ")); known: \(known.sorted().joined(separator: ", "))")
    exit(64)
}

let root = options.directory.appendingPathComponent("chronicle-bench-\(UUID().uuidString.prefix(8))")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
options.directory = root
print("Chronicle vs GRDB 7.10.0 — \(options.quick ? "quick smoke run" : "full run"), release build, \(ProcessInfo.processInfo.activeProcessorCount) cores")
print("p50 / p99: per operation where a figure is one operation, otherwise over the runs (\(options.runs) runs after \(options.warmups) warm-up; slow workloads \(options.slowRuns)).")
if options.rounds > 1 { print("\(options.rounds) rounds, the sides alternating: medians of the rounds; each ratio the median of the rounds' own.") }
print("GRDB/Chronicle above 1 means Chronicle is faster (or smaller).")
let inProcess = ["journal", "replay", "sharing", "scale", "memory"]
let selected = workloads.filter { arguments.isEmpty || arguments.contains($0.id) }
if arguments.isEmpty || !arguments.allSatisfy(inProcess.contains) {
    try Harness.runParent(selected, options: options)
}
if arguments.contains("journal") {
    print("\n== journal")
    try JournalBenchmarks.run()
}
if arguments.contains("replay") {
    print("\n== replay")
    try ReplayBenchmarks.run()
}
if arguments.contains("memory") {
    print("\n== memory")
    try MemoryProbe.run(count: options.quick ? 20_000 : 200_000, directory: root)
}
if arguments.contains("scale") {
    print("\n== scale")
    let sizes = scaleSizes ?? (options.quick ? [20_000, 100_000] : [100_000, 1_000_000] + (tenMillion ? [10_000_000] : []))
    try ScaleCurve.run(sizes: sizes, rounds: max(3, options.rounds), directory: root)
}
if arguments.contains("sharing") {
    print("\n== sharing")
    try SharingBenchmark.run(quick: options.quick, rounds: max(5, options.rounds))
}
