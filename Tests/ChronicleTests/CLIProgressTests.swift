#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import Chronicle

/// The `chronicle` tool's progress: on standard error when that is a
/// terminal (here a pseudo-terminal the test holds the other end of), and
/// never in output that is redirected. Standard output is the same either way.
@Suite("The chronicle tool: progress on a terminal", .serialized)
struct CLIProgressTests {
    /// The fewest commits for which the tool shows progress (see `Progress`).
    static let commits = 10_000

    /// A journal of `commits` commits: a counter made, then set again and again.
    static let journal = Result { () throws -> String in
        let url = try JournalFixtures.journalURL("cli-progress")
        let journal = try Journal(fileURL: url, durability: .none)
        let counter = TypeSchema(name: "Counter", properties: [
            PropertySchema(name: "id", type: .int, isPrimaryKey: true), PropertySchema(name: "value", type: .int),
        ])
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        try journal.append(Commit(version: 1, timestamp: start, label: "make",
                                  events: [.defineType(counter), .create(table: 0, key: ObjectKey(1), values: [.int(1), .int(0)])]))
        for version in 2...UInt64(commits) {
            try journal.append(Commit(version: version, timestamp: start + Double(version),
                                      events: [.set(table: 0, key: ObjectKey(1), property: 1, value: .int(Int64(version)))]))
        }
        try journal.close()
        return url.path
    }

    struct TerminalRun {
        var status: Int32
        var out: String
        /// Everything written to the terminal.
        var terminal: String
    }

    /// Runs the tool with standard error on a new pseudo-terminal and
    /// standard output on a pipe, reading both as it runs (either could
    /// fill and stall the tool otherwise).
    static func runOnTerminal(_ arguments: [String]) throws -> TerminalRun {
        let binary = try #require(CLITests.executable(), "the chronicle executable was not found; build it with `swift build`")
        var controller: Int32 = -1, terminal: Int32 = -1
        try #require(openpty(&controller, &terminal, nil, nil, nil) == 0, "openpty failed: errno \(errno)")
        defer { close(controller) }
        // Not inherited by processes other tests start meanwhile: one holding
        // the terminal open would keep this test from seeing it close.
        _ = fcntl(controller, F_SETFD, FD_CLOEXEC)
        _ = fcntl(terminal, F_SETFD, FD_CLOEXEC)

        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(fileDescriptor: terminal, closeOnDealloc: false)
        do {
            try process.run()
        } catch {
            close(terminal)
            throw error
        }
        close(terminal)  // the child has its own copy, as its standard error

        let outData = Locked(Data())
        let outDone = DispatchSemaphore(value: 0)
        let outReader = out.fileHandleForReading
        Thread.detachNewThread {
            let data = outReader.readDataToEndOfFile()
            outData.withLock { $0 = data }
            outDone.signal()
        }
        // Read the terminal until the child's end of it closes (EIO on
        // Linux, end of file elsewhere), or, as a fallback, until the child
        // has exited and nothing more arrives.
        var written: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date() + 60
        while Date() < deadline {
            var poller = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 100)
            if ready == 0 {
                if !process.isRunning { break }
                continue
            }
            if ready < 0 && errno == EINTR { continue }
            let count = read(controller, &buffer, buffer.count)
            if count <= 0 { break }
            written += buffer[..<count]
        }
        process.waitUntilExit()
        try #require(outDone.wait(timeout: .now() + 60) == .success, "standard output never closed")
        return TerminalRun(status: process.terminationStatus, out: String(decoding: outData.withLock { $0 }, as: UTF8.self),
                           terminal: String(decoding: written, as: UTF8.self))
    }

    /// The versions a terminal's progress lines report, checking that it
    /// holds nothing else: `\r<what>: version V of T (P%)` lines, then the
    /// sequence that clears the line.
    static func progressVersions(_ terminal: String, what: String, total: Int,
                                 sourceLocation: SourceLocation = #_sourceLocation) -> [Int] {
        #expect(terminal.hasSuffix("\r\u{1B}[K"), "the progress line is cleared at the end", sourceLocation: sourceLocation)
        var versions: [Int] = []
        for line in terminal.dropLast("\r\u{1B}[K".count).split(separator: "\r") {
            let prefix = "\(what): version ", middle = " of \(total) ("
            guard line.hasPrefix(prefix), let range = line.range(of: middle), line.hasSuffix("%)"),
                  let version = Int(line[line.index(line.startIndex, offsetBy: prefix.count)..<range.lowerBound]) else {
                Issue.record("not a progress line: \(line.debugDescription)", sourceLocation: sourceLocation)
                continue
            }
            versions.append(version)
        }
        return versions
    }

    @Test(arguments: [
        (["log"], "reading"), (["verify"], "verifying"), (["stats"], "counting"), (["export", "--jsonl"], "exporting"),
    ])
    func progressGoesToATerminalAndNowhereElse(command: [String], what: String) throws {
        let path = try Self.journal.get()
        let arguments = [command[0], path] + command.dropFirst()
        let piped = try CLITests.run(arguments)
        #expect(piped.status == 0, "\(piped.err)")
        #expect(piped.err.isEmpty, "no progress bytes when standard error is a pipe")
        #expect(!piped.out.isEmpty)

        let onTerminal = try Self.runOnTerminal(arguments)
        #expect(onTerminal.status == 0)
        #expect(onTerminal.out == piped.out, "standard output does not depend on where standard error goes")
        let versions = Self.progressVersions(onTerminal.terminal, what: what, total: Self.commits)
        #expect(versions.first == 1, "progress from the first commit")
        #expect(versions == versions.sorted() && Set(versions).count == versions.count, "progress moves forward: \(versions)")
        #expect(versions.allSatisfy { (1...Self.commits).contains($0) })
    }

    @Test func aSmallJournalShowsNoProgressEvenOnATerminal() throws {
        let path = try CLITests.journal.get()  // 6 commits
        let run = try Self.runOnTerminal(["log", path])
        #expect(run.status == 0)
        #expect(run.out == (try CLITests.run(["log", path])).out)
        #expect(run.terminal.isEmpty)
    }
}
