import Foundation

/// Where the benchmark finds the server binary and the database, and the
/// token its clients use.
struct BenchEnvironment: Sendable {
    /// The `chronicle-server` binary (by default the one built next to this benchmark).
    var serverBinary: URL
    /// The PostgreSQL database the servers use.
    var databaseURL: String
    /// A read-write token for every scope.
    var token: String
    /// The token file the servers read.
    var tokenFile: URL

    init(serverBinary: URL, databaseURL: String) throws {
        self.serverBinary = serverBinary
        self.databaseURL = databaseURL
        guard FileManager.default.isExecutableFile(atPath: serverBinary.path) else {
            throw BenchError("no chronicle-server at \(serverBinary.path): build it (swift build -c release) or pass --server PATH")
        }
        token = "bench-" + UUID().uuidString
        tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("chronicle-bench-tokens-\(UUID().uuidString)")
        // Hashed by the server's own command, as an operator makes a token file.
        let process = Process()
        process.executableURL = serverBinary
        process.arguments = ["hash-token", token]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let digest = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        process.waitUntilExit()
        try "\(digest) read-write *\n".write(to: tokenFile, atomically: true, encoding: .utf8)
    }

    /// A scope no earlier run used.
    static func freshScope(_ name: String) -> String { "bench-\(name)-\(UUID().uuidString.prefix(13).lowercased())" }
}

/// One `chronicle-server` process on 127.0.0.1, started by the benchmark.
final class BenchServer: @unchecked Sendable {
    // Safety: `process` is started in `init` and only stopped afterwards;
    // `Process` is thread-safe for these calls.
    let process: Process
    let port: Int
    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Launches a server on a free port and waits until it listens.
    init(_ environment: BenchEnvironment, extraArguments: [String] = []) async throws {
        let process = Process()
        process.executableURL = environment.serverBinary
        process.arguments = ["--database-url", environment.databaseURL, "--tokens", environment.tokenFile.path,
                             "--port", "0", "--log-level", "warning"] + extraArguments
        var variables = ProcessInfo.processInfo.environment
        variables["CHRONICLE_SERVER_EXIT_WITH_PARENT"] = "1"
        process.environment = variables
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        try process.run()
        self.process = process
        let handle = out.fileHandleForReading
        let found: Int? = await Task.detached {
            var text = ""
            while true {
                let data = handle.availableData
                if data.isEmpty { return nil }
                text += String(decoding: data, as: UTF8.self)
                if let range = text.range(of: #"listening on [0-9.]+:([0-9]+)"#, options: .regularExpression) {
                    return Int(text[range].split(separator: ":").last!)
                }
            }
        }.value
        guard let found else {
            process.terminate()
            throw BenchError("chronicle-server did not start (is PostgreSQL running? bash scripts/start-postgres)")
        }
        port = found
        // Keep draining standard output so the server never blocks on a full pipe.
        Thread.detachNewThread { while !handle.availableData.isEmpty {} }
    }

    /// Stops the server (SIGTERM, then SIGKILL after a second: long-polls may wait longer).
    func stop() {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
