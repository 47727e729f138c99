import Foundation
import Testing
@testable import Chronicle

/// The `chronicle` tool, run as a process on a known journal: golden output
/// for every subcommand, and the exit status of every error path.
@Suite("The chronicle tool", .serialized)
struct CLITests {
    /// The built `chronicle` executable: next to the test binary (the test
    /// target depends on it), or in the package's build folder. `CHRONICLE_CLI` overrides.
    static func executable() -> URL? {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment["CHRONICLE_CLI"] { candidates.append(URL(fileURLWithPath: override)) }
        for start in [Bundle.main.executableURL, URL(fileURLWithPath: CommandLine.arguments[0])].compactMap({ $0 }) {
            var directory = start.resolvingSymlinksInPath().deletingLastPathComponent()
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent("chronicle"))
                directory = directory.deletingLastPathComponent()
            }
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates += [root.appendingPathComponent(".build/debug/chronicle"), root.appendingPathComponent(".build/release/chronicle")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) && !$0.hasDirectoryPath }
    }

    struct Run {
        var status: Int32
        var out: String
        var err: String
    }

    static func run(_ arguments: [String]) throws -> Run {
        let binary = try #require(executable(), "the chronicle executable was not found; build it with `swift build`")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                   err: String(decoding: errData, as: UTF8.self))
    }

    /// Six labelled commits with a fixed clock: a person, her address, a rename, a counter made, bumped and deleted.
    static func knownJournal() throws -> String {
        let (store, url, ann) = try ReplayFixtures.storeWithAnn(named: "cli")
        try store.write(label: "move") {
            let address = Address()
            address.city = "Oslo"
            address.country = "NO"
            ann.address = address
        }
        try store.write(label: "rename", metadata: ["by": "tests"]) { ann.firstName = "Anna" }
        try store.write(label: "count") { store.create(Counter.self, value: ["id": 7, "value": 1]) }
        try store.write { store.object(ofType: Counter.self, forPrimaryKey: 7)!.value = 2 }
        try store.write(label: "remove") { store.delete(store.object(ofType: Counter.self, forPrimaryKey: 7)!) }
        return url.path
    }

    static let journal = Result { try knownJournal() }

    func expectGolden(_ arguments: [String], _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = try Self.journal.get()
        let run = try Self.run(arguments.map { $0 == "FILE" ? path : $0 })
        #expect(run.status == 0, "\(arguments): \(run.err)", sourceLocation: sourceLocation)
        #expect(run.out == expected, sourceLocation: sourceLocation)
        #expect(run.err.isEmpty, sourceLocation: sourceLocation)
    }

    // MARK: Golden output

    @Test func log() throws {
        try expectGolden(["log", "FILE"], """
                1  2026-01-01T00:00:01.000Z  "add Ann"  defineType Person, defineType Address, create Person#1
                2  2026-01-01T00:00:02.000Z  "move"  create Address#1, set Person#1.address
                3  2026-01-01T00:00:03.000Z  "rename"  set Person#1.firstName
                4  2026-01-01T00:00:04.000Z  "count"  defineType Counter, create Counter#1
                5  2026-01-01T00:00:05.000Z  -  set Counter#1.value
                6  2026-01-01T00:00:06.000Z  "remove"  delete Counter#1

            """)
        try expectGolden(["log", "FILE", "--type", "Counter", "--from", "5"], """
                5  2026-01-01T00:00:05.000Z  -  set Counter#1.value
                6  2026-01-01T00:00:06.000Z  "remove"  delete Counter#1

            """)
        try expectGolden(["log", "FILE", "--type", "Address", "--to", "3"], """
                1  2026-01-01T00:00:01.000Z  "add Ann"  defineType Person, defineType Address, create Person#1
                2  2026-01-01T00:00:02.000Z  "move"  create Address#1, set Person#1.address

            """)
    }

    @Test func show() throws {
        try expectGolden(["show", "FILE", "3"], """
            version   3
            time      2026-01-01T00:00:03.000Z
            label     "rename"
            metadata  by: "tests"
            events    1
              [0] set Person#1.firstName = "Anna"

            """)
        try expectGolden(["show", "FILE", "4"], """
            version   4
            time      2026-01-01T00:00:04.000Z
            label     "count"
            metadata  -
            events    2
              [0] defineType Counter {id: int (primary key), value: int}
              [1] create Counter#1 {id: 7, value: 1}

            """)
    }

    @Test func state() throws {
        try expectGolden(["state", "FILE"], """
            version 6

            Person — 1 object
              key  firstName  lastName  address  friends
              #1   "Anna"     "Lee"     →#1      []

            Address (embedded) — 1 object
              key  city    country
              #1   "Oslo"  "NO"

            Counter — 0 objects

            """)
        try expectGolden(["state", "FILE", "--at", "4", "--type", "Counter", "--json"], """
            {"version":4,"types":{
            "Counter":[
            {"#key":1,"id":7,"value":1}
            ]
            }}

            """)
    }

    @Test func history() throws {
        try expectGolden(["history", "FILE", "Person", "#1"], """
            Person#1
                1  2026-01-01T00:00:01.000Z  "add Ann"  created firstName: "Ann", lastName: "Lee", address: nil, friends: []
                2  2026-01-01T00:00:02.000Z  "move"  address: nil → →#1
                3  2026-01-01T00:00:03.000Z  "rename"  firstName: "Ann" → "Anna"

            """)
        try expectGolden(["history", "FILE", "Person", "#1", "address.city"], """
            Person#1
                1  2026-01-01T00:00:01.000Z  "add Ann"  (created) → nil
                2  2026-01-01T00:00:02.000Z  "move"  nil → "Oslo"

            """)
        try expectGolden(["history", "FILE", "Counter", "7", "value"], """
            Counter#1
                4  2026-01-01T00:00:04.000Z  "count"  (created) → 1
                5  2026-01-01T00:00:05.000Z  -  1 → 2
                6  2026-01-01T00:00:06.000Z  "remove"  2 → (deleted)

            """)
    }

    @Test func diff() throws {
        try expectGolden(["diff", "FILE", "1", "6"], """
            diff 1 → 6: 1 inserted, 0 deleted, 1 changed
              schema: new type Counter
            + Address#1 city: "Oslo", country: "NO"
            ~ Person#1 firstName: "Ann" → "Anna", address: nil → →#1

            """)
        try expectGolden(["diff", "FILE", "6", "4"], """
            diff 6 → 4: 1 inserted, 0 deleted, 0 changed
            + Counter#1 id: 7, value: 1

            """)
    }

    @Test func verifyAndStats() throws {
        try expectGolden(["verify", "FILE"], """
            ok: 6 commits, 10 events, 394 bytes; every record is whole, its checksum matches, and every commit folds
            state at version 6: 3 types, 2 objects

            """)
        let path = try Self.journal.get()
        try expectGolden(["stats", "FILE"], """
            file      \(path)
            size      394 bytes
            commits   6 (5 labelled)
            events    10
            time      2026-01-01T00:00:01.000Z … 2026-01-01T00:00:06.000Z
            types     Person, Address, Counter

            events per kind
              create        3
              defineType    3
              set           3
              delete        1

            events per type
              Counter       4
              Person        4
              Address       2

            """)
    }

    @Test func exportAndImportRoundTrip() throws {
        try expectGolden(["export", "FILE", "--jsonl", "--from", "5"], """
            {"version":5,"timestamp":788918405.0,"metadata":{},"events":[{"set":{"table":2,"key":1,"property":1,"value":2}}]}
            {"version":6,"timestamp":788918406.0,"label":"remove","metadata":{},"events":[{"delete":{"table":2,"key":1}}]}

            """)
        let path = try Self.journal.get()
        let directory = try JournalFixtures.temporaryDirectory()
        let jsonl = directory.appendingPathComponent("all.jsonl"), copy = directory.appendingPathComponent("copy.journal")
        let export = try Self.run(["export", path, "--jsonl"])
        #expect(export.status == 0)
        try Data(export.out.utf8).write(to: jsonl)
        let imported = try Self.run(["import", jsonl.path, copy.path])
        #expect(imported.status == 0 && imported.out == "imported 6 commits into \(copy.path)\n")
        let header = JournalFormat.headerSize
        #expect(try Data(contentsOf: copy).dropFirst(header) == Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(header))
        // Never overwrites.
        #expect(try Self.run(["import", jsonl.path, copy.path]).status == 1)
        // Malformed input: exit 65, names the line, leaves no journal behind.
        try Data("{\"version\":1}\n".utf8).write(to: jsonl)
        let bad = try Self.run(["import", jsonl.path, directory.appendingPathComponent("bad.journal").path])
        #expect(bad.status == 65 && bad.err.contains("line 1"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("bad.journal").path))
    }

    // MARK: Errors

    @Test func helpForTheToolAndEverySubcommand() throws {
        let tool = try Self.run(["--help"])
        #expect(tool.status == 0 && tool.out.hasPrefix("usage: chronicle <command>"))
        for command in ["log", "show", "state", "history", "diff", "verify", "export", "import", "stats"] {
            let run = try Self.run([command, "--help"])
            #expect(run.status == 0 && run.out.hasPrefix("usage: chronicle \(command)"), "\(command)")
        }
    }

    @Test func badArgumentsPrintUsageAndExit64() throws {
        let path = try Self.journal.get()
        let cases: [[String]] = [
            [], ["frobnicate"], ["log"], ["log", path, "--from"], ["log", path, "--from", "x"], ["log", path, "--bogus"],
            ["show", path], ["show", path, "99"], ["show", path, "zero"], ["state", path, "--at", "7"], ["state", path, "--type", "Nope"],
            ["history", path, "Person"], ["history", path, "Nope", "#1"], ["history", path, "Person", "#x"],
            ["history", path, "Person", "#1", "nope"], ["history", path, "Person", "Ann"], ["diff", path, "1"],
            ["diff", path, "1", "9"], ["export", path], ["log", path, "extra"],
        ]
        for arguments in cases {
            let run = try Self.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.err)")
            #expect(run.err.contains("usage: chronicle"), "\(arguments)")
            #expect(run.out.isEmpty, "\(arguments)")
        }
    }

    @Test func aMissingFileExits66() throws {
        for command in ["log", "show", "state", "verify", "stats", "export"] {
            var arguments = [command, "/nonexistent/x.journal"]
            if command == "show" { arguments.append("1") }
            if command == "export" { arguments.append("--jsonl") }
            let run = try Self.run(arguments)
            #expect(run.status == 66, "\(command)")
            #expect(run.err.contains("/nonexistent/x.journal: no such file"), "\(command)")
        }
    }

    @Test func aDamagedJournalExits65AndNamesTheOffset() throws {
        let path = try Self.journal.get()
        let directory = try JournalFixtures.temporaryDirectory()
        let damaged = directory.appendingPathComponent("damaged.journal")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let journal = try Journal(contentsOf: URL(fileURLWithPath: path))
        let offset = try journal.core.readRange(from: 3).start
        bytes[offset + 10] ^= 0xFF  // inside record 3; valid records follow
        try bytes.write(to: damaged)
        let verify = try Self.run(["verify", damaged.path])
        #expect(verify.status == 65)
        #expect(verify.out.contains("damaged at byte \(offset), after version 2"))
        let log = try Self.run(["log", damaged.path])
        #expect(log.status == 65 && log.err.contains("byte \(offset)") && log.out.isEmpty)
        let notAJournal = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: notAJournal)
        let run = try Self.run(["stats", notAJournal.path])
        #expect(run.status == 65 && run.err.contains("not a Chronicle journal"))
        // A torn tail is not damage: verify passes and says so.
        let torn = directory.appendingPathComponent("torn.journal")
        try (try Data(contentsOf: URL(fileURLWithPath: path)) + Data([7, 0, 0])).write(to: torn)
        let tornRun = try Self.run(["verify", torn.path])
        #expect(tornRun.status == 0 && tornRun.out.contains("torn tail of 3 bytes"))
    }
}
