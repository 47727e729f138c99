import Foundation

/// One `chronicle-server` process on 127.0.0.1, launched by the sync tests
/// or the sync benchmark (which run real servers, as users do).
public final class ServerProcess: @unchecked Sendable {
    // Safety: `process` is only started in `init` and stopped in `kill()`
    // or `stop()`; `Process` itself is thread-safe for these calls.
    /// The running process.
    public let process: Process
    /// The port it listens on.
    public let port: Int
    /// `http://127.0.0.1:port`.
    public var base: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Launches `binary` against the database at `databaseURL` with the
    /// tokens of `tokenFile`, on `port` (`0`: a free one), and waits until it listens.
    /// The server exits by itself if this process dies.
    public init(binary: URL, databaseURL: String, tokenFile: URL, port: Int = 0, extraArguments: [String] = []) async throws {
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--database-url", databaseURL, "--tokens", tokenFile.path,
                             "--port", String(port), "--log-level", "warning"] + extraArguments
        var environment = ProcessInfo.processInfo.environment
        environment["CHRONICLE_SERVER_EXIT_WITH_PARENT"] = "1"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        try process.run()
        self.process = process
        // Read lines until the server says where it listens.
        let handle = out.fileHandleForReading
        let found: Int? = await Task.detached {
            var text = ""
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let data = handle.availableData
                if data.isEmpty { return nil }
                text += String(decoding: data, as: UTF8.self)
                if let range = text.range(of: #"listening on [0-9.]+:([0-9]+)"#, options: .regularExpression) {
                    return Int(text[range].split(separator: ":").last!)
                }
            }
            return nil
        }.value
        guard let found else {
            process.terminate()
            throw ServerLaunchError()
        }
        self.port = found
        // Keep draining standard output so the server never blocks on a full pipe.
        Thread.detachNewThread { while !handle.availableData.isEmpty {} }
    }

    /// Kills the server at once (SIGKILL): no graceful shutdown.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the server (SIGTERM, which lets requests in flight finish;
    /// SIGKILL after a second, as long-polls may wait much longer) and waits for it.
    public func stop() {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { if process.isRunning { process.terminate() } }
}

/// A server that exited or said nothing before listening.
public struct ServerLaunchError: Error, CustomStringConvertible {
    /// What to check.
    public var description: String { "chronicle-server did not start (is PostgreSQL running? see scripts/start-postgres)" }
}
