#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import Chronicle

@Suite("Journal: crashes")
struct JournalCrashTests {
    /// Must build the same commit as `crashCommit` in Tests/ChronicleCrashChild/main.swift.
    static func expectedCommit(_ version: UInt64) -> Commit {
        let length = Int((version &* 7919) % 3000)
        let text = String(repeating: Character(UnicodeScalar(UInt8(97 + version % 26))), count: length)
        return Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)),
                      label: "crash \(version)", events: [.set(table: 0, key: ObjectKey(Int64(version)), property: 0, value: .string(text))])
    }

    /// The crash child's executable (or another helper target's, `name`):
    /// built next to the test binary by `swift test` (the test target
    /// depends on it). `CHRONICLE_CRASH_CHILD` overrides the crash child's lookup.
    static func childExecutable(named name: String = "ChronicleCrashChild") -> URL? {
        var candidates: [URL] = []
        if name == "ChronicleCrashChild", let override = ProcessInfo.processInfo.environment["CHRONICLE_CRASH_CHILD"] {
            candidates.append(URL(fileURLWithPath: override))
        }
        // Next to the test binary, or next to the .xctest bundle that holds it (macOS).
        for start in [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap({ $0 }) {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent(name))
                directory = directory.deletingLastPathComponent()
            }
        }
        // The package's build directory, found from this source file.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent(".build/debug/\(name)"))
        candidates.append(root.appendingPathComponent(".build/release/\(name)"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test(.timeLimit(.minutes(1)))
    func killedWhileAppendingWithFullDurabilityLosesNoReportedCommit() throws {
        let child = try #require(Self.childExecutable(), "ChronicleCrashChild was not found next to the test binary; build it with `swift build --build-tests` or set CHRONICLE_CRASH_CHILD")
        let url = try JournalFixtures.journalURL()
        var generator = SystemRandomNumberGenerator()
        var highestReported: UInt64 = 0
        let rounds = 24
        for round in 0..<rounds {
            let process = Process()
            process.executableURL = child
            process.arguments = [url.path]
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            usleep(UInt32.random(in: 20_000...300_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let complaint = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            try #require(process.terminationReason == .uncaughtSignal,
                         "round \(round): the child exited by itself (status \(process.terminationStatus)): \(complaint)")
            // Only whole lines: the kill may land between a digit and the newline.
            let reported = printed.split(separator: "\n", omittingEmptySubsequences: false).dropLast().compactMap { UInt64($0) }
            highestReported = max(highestReported, reported.max() ?? 0)

            let journal = try Journal(fileURL: url, durability: .none)
            #expect(journal.lastVersion >= highestReported, "round \(round): version \(highestReported) returned but was lost")
            var reader = journal.reader()
            var version: UInt64 = 0
            while let commit = try reader.next() {
                version += 1
                #expect(commit == Self.expectedCommit(version), "round \(round): commit \(version) differs")
            }
            #expect(version == journal.lastVersion)
            highestReported = max(highestReported, journal.lastVersion)
        }
        #expect(highestReported > 0, "the child never got to append")
    }
}
