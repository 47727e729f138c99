#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Prints a line at once (unbuffered), so progress shows when the output goes to a file.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Clock and summary statistics for the sync benchmarks.
enum Stats {
    /// `CLOCK_MONOTONIC` in nanoseconds: what the writer stamps into a
    /// commit and the observer subtracts from (one machine, one clock).
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }

    /// Seconds since `start` (a `now()` value).
    static func seconds(since start: Int) -> Double { Double(now() - start) / 1e9 }

    /// The value below which `fraction` of the values lie (nearest rank).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        precondition(!values.isEmpty, "percentile of no values")
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    /// `1.23 ms` from seconds.
    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1e3) }

    /// `12,345` from a number.
    static func count(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        return formatter.string(from: NSNumber(value: value)) ?? String(Int(value))
    }
}
