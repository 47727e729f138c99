// Chronicle's benchmarks. Build in release:
//   swift run -c release --package-path Benchmarks ChronicleBenchmarks <group>...
// With no group, every group runs. Add a workload group by adding a file with
// an entry in `groups` below.
import Foundation

let groups: [(name: String, summary: String, run: () throws -> Void)] = [
    ("journal", "append and read commits: .none, .full with 1 and 8 committers, read back", JournalBenchmarks.run),
    ("replay", "open a 1M-event journal with and without a checkpoint; frozen(at:) random versions", ReplayBenchmarks.run),
]

let requested = Array(CommandLine.arguments.dropFirst())
if requested.contains("-h") || requested.contains("--help") {
    print("usage: ChronicleBenchmarks [group...]\ngroups:")
    for group in groups { print("  \(group.name)  \(group.summary)") }
    exit(0)
}
let unknown = requested.filter { name in !groups.contains { $0.name == name } }
guard unknown.isEmpty else {
    print("unknown benchmark group(s): \(unknown.joined(separator: ", ")); known: \(groups.map(\.name).joined(separator: ", "))")
    exit(64)
}
for group in groups where requested.isEmpty || requested.contains(group.name) {
    print("== \(group.name)")
    try group.run()
}
