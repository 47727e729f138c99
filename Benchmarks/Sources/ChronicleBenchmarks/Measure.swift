import Foundation

/// Timing helpers: run a workload several times and report the median (and p99 of per-operation latencies).
enum Measure {
    /// Runs `body` `runs` times (after `setup` each time, untimed) and returns each run's duration.
    static func runs(_ runs: Int, setup: () throws -> Void = {}, _ body: () throws -> Void) rethrows -> [Duration] {
        var durations: [Duration] = []
        for _ in 0..<runs {
            try setup()
            let clock = ContinuousClock()
            durations.append(try clock.measure(body))
        }
        return durations
    }

    /// Runs `body` `warmups` times untimed, then `runs` times timed (after
    /// `setup` each time, untimed); returns the timed durations.
    static func repeated(warmups: Int, runs: Int, setup: () throws -> Void = {}, _ body: () throws -> Void) rethrows -> [Duration] {
        for _ in 0..<warmups {
            try setup()
            try body()
        }
        return try self.runs(runs, setup: setup, body)
    }

    static func median(_ values: [Duration]) -> Duration {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }

    /// The value below which `fraction` of the values lie.
    static func percentile(_ values: [Duration], _ fraction: Double) -> Duration {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// Prints one result line: the median run time and the throughput it means.
    static func report(_ name: String, operations: Int, durations: [Duration], extra: String = "") {
        let median = seconds(Self.median(durations))
        let rate = Double(operations) / median
        let runs = durations.map { String(format: "%.3f", seconds($0)) }.joined(separator: " ")
        print(String(format: "%-46@ median %8.3f s  %12.0f ops/s  %@", name as NSString, median, rate, extra as NSString)
              + "  [runs: \(runs)]")
    }
}
