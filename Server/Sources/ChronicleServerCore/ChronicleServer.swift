import Foundation
import Hummingbird
import Logging
import NIOCore
import PostgresNIO

/// Runs `chronicle-server` with a configuration until it is stopped (SIGINT or SIGTERM).
public enum ChronicleServerMain {
    /// Parses the command line and runs; exits with 64 on a usage error.
    public static func main(arguments: [String], environment: [String: String]) async {
        if arguments.first == "hash-token" {
            guard arguments.count == 2 else {
                FileHandle.standardError.write(Data("usage: chronicle-server hash-token TOKEN\n".utf8))
                exit(64)
            }
            print(TokenStore.hash(arguments[1]))
            return
        }
        let configuration: ServerConfiguration
        let tokens: TokenStore
        do {
            guard let parsed = try ServerConfiguration.parse(arguments, environment: environment) else {
                print(ServerConfiguration.help)
                return
            }
            configuration = parsed
            tokens = try TokenStore(contentsOf: configuration.tokenFile)
        } catch {
            FileHandle.standardError.write(Data("chronicle-server: \(error.description)\n".utf8))
            exit(64)
        }
        if environment["CHRONICLE_SERVER_EXIT_WITH_PARENT"] == "1" {
            // For test harnesses: a server whose launcher died (a killed test run) must not linger.
            let parent = getppid()
            Task.detached {
                while getppid() == parent { try? await Task.sleep(for: .milliseconds(250)) }
                exit(0)
            }
        }
        do {
            try await run(configuration, tokens: tokens)
        } catch {
            FileHandle.standardError.write(Data("chronicle-server: \(String(reflecting: error))\n".utf8))
            exit(1)
        }
    }

    /// Serves until stopped.
    public static func run(_ configuration: ServerConfiguration, tokens: TokenStore) async throws {
        let logger = {
            var logger = Logger(label: "chronicle-server")
            logger.logLevel = configuration.logLevel
            return logger
        }()
        let address = try DatabaseAddress(configuration.databaseURL)
        var postgres = PostgresClient.Configuration(host: address.host, port: address.port, username: address.username,
                                                    password: address.password, database: address.database, tls: .disable)
        postgres.options.maximumConnections = 40
        let client = PostgresClient(configuration: postgres, backgroundLogger: logger)
        let database = CommitDatabase(client: client, logger: logger)
        let notifier = CommitNotifier()
        let router = Router()
        SyncRoutes(database: database, notifier: notifier, tokens: tokens, configuration: configuration).register(on: router)
        var app = Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "chronicle-server"),
            onServerRunning: { channel in
                // One plain line on standard output, for scripts and tests to read the port from.
                let line = "chronicle-server listening on \(configuration.host):\(channel.localAddress?.port ?? configuration.port)\n"
                FileHandle.standardOutput.write(Data(line.utf8))
            },
            logger: logger
        )
        app.addServices(client)
        app.beforeServerStarts {
            try await database.migrate()
            Task { await notifier.listen(client: client, logger: logger) }
        }
        try await app.runService()
    }
}
