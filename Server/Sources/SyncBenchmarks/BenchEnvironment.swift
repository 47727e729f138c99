import Foundation
import ServerProcesses

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

extension ServerProcess {
    /// Launches a server of the benchmark's database and tokens on a free port and waits until it listens.
    convenience init(_ environment: BenchEnvironment, extraArguments: [String] = []) async throws {
        try await self.init(binary: environment.serverBinary, databaseURL: environment.databaseURL,
                            tokenFile: environment.tokenFile, extraArguments: extraArguments)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
