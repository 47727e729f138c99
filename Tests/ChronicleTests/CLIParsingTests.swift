import Foundation
import Testing
@testable import ChronicleCLI

/// The `chronicle` tool's command-line parsing (Invocation.parse), called
/// directly: it opens no file, so every malformed command line is a usage
/// error before anything runs. CLITests runs the tool itself.
@Suite("The chronicle tool: parsing")
struct CLIParsingTests {
    static func usageError(_ words: [String]) -> String? {
        do {
            _ = try Invocation.parse(words)
            return nil
        } catch {
            if case .usage(let message) = error { return message }
            return nil
        }
    }

    @Test func commandLinesParseToWhatTheySay() throws {
        #expect(try Invocation.parse(["log", "a.journal", "--type", "T", "--to", "3"]) == .log(path: "a.journal", from: 1, to: 3, type: "T"))
        #expect(try Invocation.parse(["export", "--jsonl", "x"]) == .export(path: "x", from: 1, to: nil))
        #expect(try Invocation.parse(["history", "j", "Person", "#007", "address.city"])
                == .history(path: "j", type: "Person", object: .init(text: "#007", key: 7), property: "address.city"))
        #expect(try Invocation.parse(["history", "j", "Person", "Ann"]) == .history(path: "j", type: "Person", object: .init(text: "Ann", key: nil), property: nil))
        #expect(try Invocation.parse(["state", "j", "--json"]) == .state(path: "j", at: nil, type: nil, json: true))
        // An option's value is taken as is, even when it looks like an option.
        #expect(try Invocation.parse(["log", "j", "--type", "--to"]) == .log(path: "j", from: 1, to: nil, type: "--to"))
        if case .help(let text) = try Invocation.parse(["diff", "--help"]) { #expect(text.hasPrefix("usage: chronicle diff")) } else {
            Issue.record("diff --help is not help")
        }
    }

    /// Arguments are checked before any file is opened, whichever the
    /// command: a bad version with a missing file is a usage error.
    @Test func badArgumentsAreUsageErrorsBeforeAnyFileIsOpened() {
        let missing = "/nonexistent/x.journal"
        #expect(Self.usageError(["log", missing, "--from", "x"]) == "--from needs a version number, not \"x\"")
        #expect(Self.usageError(["show", missing, "0"]) == "versions start at 1")
        #expect(Self.usageError(["state", missing, "--at", "-1"]) == "--at needs a version number, not \"-1\"")
        #expect(Self.usageError(["history", missing, "Person", "#x"]) == "#x is not an object key (#N)")
        #expect(Self.usageError(["export", missing, "--to", "9"]) == "name the format: --jsonl")
        #expect(Self.usageError(["log", missing, "--from", "1", "--from", "2"]) == "option --from is given twice")
        #expect(throws: CLIError.self) { try Invocation.parse(["frobnicate"]) }
    }

    /// Every committed input of the cli-args fuzz corpus (seeds, and any
    /// regression found) parses to an invocation or a usage error.
    @Test func committedCorpusParsesOrIsAUsageError() throws {
        let directory = FuzzSeedTests.corpus.appendingPathComponent("cli-args")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.contains { $0.hasPrefix("seed-") })
        for file in files {
            let bytes = try JournalFixtures.bytes(directory.appendingPathComponent(file))
            let words = bytes.isEmpty ? [] : bytes.split(separator: 0, omittingEmptySubsequences: false).map {
                String(decoding: $0, as: UTF8.self)
            }
            do {
                _ = try Invocation.parse(words)
            } catch {
                switch error {
                case .usage, .unknownCommand: break
                default: Issue.record("\(file): \(error)")
                }
            }
        }
    }
}
