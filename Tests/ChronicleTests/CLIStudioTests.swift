import Foundation
import Testing
@testable import Chronicle
@testable import ChronicleCLI

/// `chronicle studio`: parsing, and the tool run as a process. What the page
/// shows is checked in `StudioPageTests` and `StudioBrowserTests`.
@Suite("The chronicle tool: studio", .serialized)
struct CLIStudioTests {
    @Test func parses() throws {
        #expect(try Invocation.parse(["studio", "j"]) == .studio(path: "j", output: nil, open: false))
        #expect(try Invocation.parse(["studio", "j", "--output", "p.html", "--open"]) == .studio(path: "j", output: "p.html", open: true))
        #expect(CLIParsingTests.usageError(["studio"]) == "missing arguments")
        #expect(CLIParsingTests.usageError(["studio", "j", "--output"]) == "option --output needs a value")
        #expect(CLIParsingTests.usageError(["studio", "j", "--at", "3"]) == "unknown option --at")
        if case .help(let text) = try Invocation.parse(["studio", "--help"]) { #expect(text.hasPrefix("usage: chronicle studio")) } else {
            Issue.record("studio --help is not help")
        }
        if case .help(let text) = try Invocation.parse(["--help"]) { #expect(text.contains("studio FILE [--output PATH] [--open]")) }
    }

    @Test func writesThePageAndPrintsItsPath() throws {
        let (store, url) = try StudioFixtures.store()
        try store.close()
        let output = url.deletingLastPathComponent().appendingPathComponent("out.html").path
        let run = try CLITests.run(["studio", url.path, "--output", output])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out == output + "\n")
        #expect(run.err.isEmpty)
        let html = try String(contentsOfFile: output, encoding: .utf8)
        #expect(html == (try Journal(contentsOf: url)).studioPage())
    }

    @Test func errorsHaveTheToolsExitStatuses() throws {
        let directory = try JournalFixtures.temporaryDirectory()
        let missing = try CLITests.run(["studio", directory.appendingPathComponent("none.journal").path])
        #expect(missing.status == 66)
        let text = directory.appendingPathComponent("notes.txt")
        try Data("hello".utf8).write(to: text)
        let foreign = try CLITests.run(["studio", text.path, "--output", directory.appendingPathComponent("p.html").path])
        #expect(foreign.status == 65)
        #expect(foreign.err.contains("is not a Chronicle journal"))
        let (store, url) = try StudioFixtures.store()
        try store.close()
        let unwritable = try CLITests.run(["studio", url.path, "--output", "/nonexistent-\(UUID().uuidString)/p.html"])
        #expect(unwritable.status == 1)
        #expect(unwritable.err.contains("creating the Studio page"))
    }

    @Test func openWithoutAnOpenerSaysSo() throws {
        let (store, url) = try StudioFixtures.store()
        try store.close()
        let output = url.deletingLastPathComponent().appendingPathComponent("open.html").path
        let binary = try #require(CLITests.executable())
        let process = Process()
        process.executableURL = binary
        process.arguments = ["studio", url.path, "--output", output, "--open"]
        process.environment = ["PATH": "/nonexistent"]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(message.contains("neither xdg-open nor open is on the PATH"))
        #expect(FileManager.default.fileExists(atPath: output), "the page is written all the same")
    }
}
