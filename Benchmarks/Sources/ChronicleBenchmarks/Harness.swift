import Foundation

/// The side-by-side harness: every workload runs in a child process of this
/// executable, once per side, so that each child's peak resident memory
/// (`VmHWM` in `/proc/self/status`, read at the end of the child) belongs to
/// that workload and side alone. The parent runs the children one after the
/// other, in the same run, and prints the table.
///
/// A child prints one line per figure (`FIGURE\t…`) and one `RSS\t<kB>`
/// line; everything else it prints goes to stderr and is passed through.

/// Which library a child measures.
enum Side: String, CaseIterable, Sendable {
    case chronicle
    case grdb
}

/// One measured figure.
struct Figure: Sendable {
    enum Unit: String, Sendable {
        /// Seconds; smaller is better.
        case seconds = "s"
        /// Seconds an operation, where a target is about the tail (W5's
        /// commit-to-wake): as ``seconds``, and paired with the other
        /// side's, the ratio of their p99s is shown as well.
        case latency = "l"
        /// Bytes; smaller is better.
        case bytes = "B"
        /// A plain count.
        case count = "n"
        /// A side's ratio of two of its own figures (say, eight writers'
        /// throughput against one writer's); larger is better.
        case ratio = "x"

        /// Seconds, of either kind.
        var isTime: Bool { self == .seconds || self == .latency }
    }

    var name: String
    var unit: Unit = .seconds
    var median: Double
    var p99: Double
    var note: String = ""

    /// The name the other side's figure is paired with: the part before " #".
    var pairKey: String { name.components(separatedBy: " #").first ?? name }

    static func times(_ name: String, _ durations: [Duration], note: String = "") -> Figure {
        Figure(name: name, median: Measure.seconds(Measure.median(durations)),
               p99: Measure.seconds(Measure.percentile(durations, 0.99)), note: note)
    }

    /// ``times(_:_:note:)`` as a ``Unit/latency``.
    static func latencies(_ name: String, _ durations: [Duration], note: String = "") -> Figure {
        var figure = times(name, durations, note: note)
        figure.unit = .latency
        return figure
    }

    static func bytes(_ name: String, _ value: Int, note: String = "") -> Figure {
        Figure(name: name, unit: .bytes, median: Double(value), p99: Double(value), note: note)
    }

    static func count(_ name: String, _ value: Int, note: String = "") -> Figure {
        Figure(name: name, unit: .count, median: Double(value), p99: Double(value), note: note)
    }

    static func ratio(_ name: String, _ value: Double, note: String = "") -> Figure {
        Figure(name: name, unit: .ratio, median: value, p99: value, note: note)
    }

    /// Whether a GRDB/Chronicle ratio of this figure means anything (not
    /// for counts, nor for each side's ratio of its own figures).
    var isComparable: Bool { unit.isTime || unit == .bytes }

    var line: String {
        ["FIGURE", name, unit.rawValue, String(median), String(p99), note].joined(separator: "\t")
    }

    init(name: String, unit: Unit = .seconds, median: Double, p99: Double, note: String = "") {
        self.name = name
        self.unit = unit
        self.median = median
        self.p99 = p99
        self.note = note
    }

    init?(line: Substring) {
        let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 5, parts[0] == "FIGURE", let unit = Unit(rawValue: parts[2]),
              let median = Double(parts[3]), let p99 = Double(parts[4]) else { return nil }
        self.init(name: parts[1], unit: unit, median: median, p99: p99, note: parts.count > 5 ? parts[5] : "")
    }
}

/// Sizes and repetitions; `--quick` shrinks everything for a smoke run.
struct Options: Sendable {
    var quick = false
    /// How many times each workload's sides run, alternating (`--rounds N`):
    /// each figure is then the median of the rounds, and its ratio the
    /// median of the rounds' own ratios — each round's two sides ran one
    /// right after the other, so a machine whose speed drifts (a shared VM)
    /// moves both.
    var rounds = 1
    /// Where children share seeded files (W6 opens what its seed step wrote).
    var directory: URL

    var warmups: Int { 1 }
    var runs: Int { quick ? 2 : 5 }
    /// Runs of the slow workloads (durable commits, opening 1M objects).
    var slowRuns: Int { quick ? 1 : 3 }
    var players: Int { quick ? 20_000 : 100_000 }
    var lookups: Int { quick ? 20_000 : 100_000 }
    var durableCommits: Int { quick ? 800 : 10_000 }
    var observedPlayers: Int { 10_000 }
    var observers: Int { quick ? 200 : 1_000 }
    var observedCommits: Int { quick ? 100 : 300 }
    var bigStore: Int { quick ? 100_000 : 1_000_000 }
    var commitSizes: [Int] { quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000] }
}

/// A workload group: one child process per side.
struct Workload: Sendable {
    var id: String
    var summary: String
    var sides: [Side]
    /// Runs before the children, in a child of its own (e.g. writing a big store to open).
    var prepare: (@Sendable (Options) throws -> Void)?
    var run: @Sendable (Side, Options) throws -> [Figure]
}

enum ProcessInfoReader {
    /// The process's minor page faults so far (`getrusage`): pages it
    /// touched for the first time since the kernel gave them to it.
    static func minorFaults() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_minflt
    }

    /// A field of `/proc/self/status` in kB (`VmHWM`: peak resident; `VmRSS`: current).
    static func statusKB(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0
        }
        return 0
    }

    /// Prints glibc's `malloc_stats()` to standard error (nothing
    /// elsewhere): its "in use bytes" is what the live objects take, where
    /// resident memory also counts the freed blocks malloc keeps.
    static func printMallocStats() {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_stats") else { return }
        unsafeBitCast(symbol, to: (@convention(c) () -> Void).self)()
        #endif
    }

    /// Total size of the files in `directory` whose names start with `prefix`.
    static func diskSize(_ directory: URL, prefix: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) }.reduce(0) { total, name in
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }
}

enum Harness {
    /// The child's entry point: `--child <workload> <side>` (or `prepare`).
    static func runChild(_ workload: Workload, side: String, options: Options) throws {
        if side == "prepare" {
            try workload.prepare?(options)
        } else {
            guard let side = Side(rawValue: side) else { fatalError("unknown side \(side)") }
            for figure in try workload.run(side, options) {
                print(figure.line)
                fflush(nil)
            }
        }
        print("RSS\t\(ProcessInfoReader.statusKB("VmHWM"))")
    }

    struct ChildResult {
        var figures: [Figure] = []
        var peakKB = 0
        var seconds = 0.0
    }

    /// Runs one child process of this executable and collects its figures.
    static func child(_ arguments: [String]) throws -> ChildResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.standardError
        let start = ContinuousClock.now
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var result = ChildResult()
        result.seconds = Measure.seconds(ContinuousClock.now - start)
        guard process.terminationStatus == 0 else {
            FileHandle.standardError.write(Data("child \(arguments) exited with \(process.terminationStatus)\n".utf8))
            exit(1)
        }
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            if let figure = Figure(line: line) {
                result.figures.append(figure)
            } else if line.hasPrefix("RSS\t") {
                result.peakKB = Int(line.dropFirst(4)) ?? 0
            } else {
                print(line)
            }
        }
        return result
    }

    /// Runs the workloads' children and prints each workload's table.
    static func runParent(_ workloads: [Workload], options: Options) throws {
        let started = ContinuousClock.now
        let common = options.quick ? ["--quick"] : []
        for workload in workloads {
            print("\n== \(workload.id): \(workload.summary)")
            fflush(nil)
            if workload.prepare != nil {
                let prepared = try child(["--child", workload.id, "prepare", "--dir", options.directory.path] + common)
                print(String(format: "   (prepared in %.1f s, peak RSS %.0f MB)", prepared.seconds, Double(prepared.peakKB) / 1024))
            }
            var rounds: [[Side: ChildResult]] = []
            for _ in 0..<max(1, options.rounds) {
                var results: [Side: ChildResult] = [:]
                for side in workload.sides {
                    results[side] = try child(["--child", workload.id, side.rawValue, "--dir", options.directory.path] + common)
                }
                rounds.append(results)
            }
            printTable(workload, rounds)
        }
        print(String(format: "\nTotal: %.0f s", Measure.seconds(ContinuousClock.now - started)))
    }

    static func format(_ value: Double, _ unit: Figure.Unit) -> String {
        if value < 0 { return "n/a" }
        switch unit {
        case .seconds, .latency:
            if value >= 1 { return String(format: "%.2f s", value) }
            if value >= 1e-3 { return String(format: "%.2f ms", value * 1e3) }
            if value >= 1e-6 { return String(format: "%.2f µs", value * 1e6) }
            return String(format: "%.0f ns", value * 1e9)
        case .bytes:
            if value >= 1_048_576 { return String(format: "%.1f MB", value / 1_048_576) }
            if value >= 1024 { return String(format: "%.1f kB", value / 1024) }
            return String(format: "%.0f B", value)
        case .count:
            return String(format: "%.0f", value)
        case .ratio:
            return String(format: "%.2f×", value)
        }
    }

    /// One side's figures over the rounds: each the median of the rounds'
    /// medians and of their p99s, named and ordered as in the first round.
    /// A figure's note (often derived from its median, like a per-lookup
    /// time) is the median round's.
    static func merged(_ rounds: [ChildResult]) -> [Figure] {
        guard let first = rounds.first else { return [] }
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2]
        }
        return first.figures.map { figure in
            let same = rounds.compactMap { round in round.figures.first { $0.name == figure.name } }
            var merged = figure
            merged.median = median(same.map(\.median))
            merged.p99 = median(same.map(\.p99))
            merged.note = same.first { $0.median == merged.median }?.note ?? figure.note
            return merged
        }
    }

    /// A side's own values of `figure` over the rounds, when there are several.
    static func spread(_ rounds: [[Side: ChildResult]], _ side: Side, _ figure: String) -> String {
        roundsText(rounds.compactMap { $0[side]?.figures.first { $0.name == figure }?.median })
    }

    /// "rounds a, b, c" when there are several values, otherwise nothing.
    static func roundsText(_ values: [Double]) -> String {
        values.count > 1 ? "rounds " + values.map { String(format: "%.2f", $0) }.joined(separator: ", ") : ""
    }

    /// The median of the rounds' own ratios of `peer` to `figure`, and the
    /// ratios themselves.
    /// Of the p99s instead, with `p99`.
    static func ratios(_ rounds: [[Side: ChildResult]], chronicle figure: String, grdb peer: String,
                       p99: Bool = false) -> (median: Double, each: [Double]) {
        let each = rounds.compactMap { round -> Double? in
            guard let mine = round[.chronicle]?.figures.first(where: { $0.name == figure }),
                  let theirs = round[.grdb]?.figures.first(where: { $0.name == peer }) else { return nil }
            let (a, b) = p99 ? (theirs.p99, mine.p99) : (theirs.median, mine.median)
            return b > 0 ? a / b : nil
        }
        let sorted = each.sorted()
        return (sorted.isEmpty ? 0 : sorted[(sorted.count - 1) / 2], each)
    }

    static func printTable(_ workload: Workload, _ rounds: [[Side: ChildResult]]) {
        let chronicle = merged(rounds.compactMap { $0[.chronicle] })
        let grdb = merged(rounds.compactMap { $0[.grdb] })
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        let header = pad("figure", 52) + pad("Chronicle p50 / p99", 26) + pad("GRDB p50 / p99", 26) + "GRDB/Chronicle"
        print(header)
        var printedGRDB = Set<String>()
        for figure in chronicle {
            let peers = grdb.filter { $0.pairKey == figure.name }
            let mine = format(figure.median, figure.unit) + (figure.unit.isTime ? " / " + format(figure.p99, figure.unit) : "")
            if peers.isEmpty {
                let note = [figure.unit == .ratio ? spread(rounds, .chronicle, figure.name) : "", figure.note]
                    .filter { !$0.isEmpty }.joined(separator: "; ")
                print(pad(figure.name, 52) + pad(mine, 26) + pad("—", 26) + "        " + note)
            }
            for peer in peers {
                printedGRDB.insert(peer.name)
                let theirs = format(peer.median, peer.unit) + (peer.unit.isTime ? " / " + format(peer.p99, peer.unit) : "")
                let (median, each) = ratios(rounds, chronicle: figure.name, grdb: peer.name)
                let ratio = figure.median > 0 && peer.isComparable ? String(format: "%.2f×", median) : "—"
                let spread: String
                if peer.unit == .ratio {
                    let mineEach = Self.spread(rounds, .chronicle, figure.name), theirsEach = Self.spread(rounds, .grdb, peer.name)
                    spread = mineEach.isEmpty ? "" : "Chronicle \(mineEach); GRDB \(theirsEach)"
                } else if figure.unit == .latency && peer.unit == .latency {
                    let (p99, p99Each) = ratios(rounds, chronicle: figure.name, grdb: peer.name, p99: true)
                    let p99Text = String(format: "p99 %.2f×", p99) + (p99Each.count > 1 ? " (\(Self.roundsText(p99Each)))" : "")
                    spread = [Self.roundsText(each), p99Text].filter { !$0.isEmpty }.joined(separator: "; ")
                } else {
                    spread = peer.isComparable ? Self.roundsText(each) : ""
                }
                let note = [spread, figure.note, peer.note].filter { !$0.isEmpty }.joined(separator: "; ")
                print(pad(peer.name, 52) + pad(mine, 26) + pad(theirs, 26) + pad(ratio, 8) + note)
            }
        }
        for peer in grdb where !printedGRDB.contains(peer.name) {
            let theirs = format(peer.median, peer.unit) + (peer.unit.isTime ? " / " + format(peer.p99, peer.unit) : "")
            print(pad(peer.name, 52) + pad("—", 26) + pad(theirs, 26) + "        " + peer.note)
        }
        let rss = workload.sides.map { side in
            let peak = rounds.map { $0[side]?.peakKB ?? 0 }.max() ?? 0
            return String(format: "%@ %.0f MB", side == .chronicle ? "Chronicle" : "GRDB", Double(peak) / 1024)
        }.joined(separator: ", ")
        print("peak RSS of the workload's process: " + rss)
        fflush(nil)
    }
}
