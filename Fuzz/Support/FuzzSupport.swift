// Shared by every fuzz target. Compiled into the same module as the
// library's sources (see scripts/fuzz), so targets reach internal API.
import Foundation

/// The fuzzer's input as bytes.
func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// Stops the run with a crash libFuzzer reports (and saves the input for):
/// an invariant the target checks did not hold.
func fuzzViolation(_ message: @autoclosure () -> String, file: StaticString = #file, line: UInt = #line) -> Never {
    fatalError("fuzz invariant violated: \(message())", file: file, line: line)
}
