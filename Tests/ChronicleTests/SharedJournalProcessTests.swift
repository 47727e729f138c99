#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import Chronicle
@testable import ChronicleCLI

/// A running ChronicleSharingChild: commands in, answer lines out.
final class SharingProcess: @unchecked Sendable {
    // Safety: `lines` is guarded by its lock; the rest is set in init only.
    let process = Process()
    private let input = Pipe(), output = Pipe(), errors = Pipe()
    private let lines = Locked<[String]>([])
    private let partial = Locked<String>("")

    /// Launches the helper on `url` and waits for it to be ready.
    convenience init(_ url: URL, durability: String = "full", sourceLocation: SourceLocation = #_sourceLocation) throws {
        try self.init(executable: "ChronicleSharingChild", [url.path, "--durability", durability], ready: "ready",
                      sourceLocation: sourceLocation)
    }

    /// Launches the executable `name` (built next to the test binary) with
    /// `arguments`, and waits for a line starting with `ready`, if given.
    init(executable name: String, _ arguments: [String], ready: String?, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let child = try #require(JournalCrashTests.childExecutable(named: name),
                                 "\(name) was not found next to the test binary; build it with `swift build --build-tests`",
                                 sourceLocation: sourceLocation)
        process.executableURL = child
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // A thread of its own reads the answers (blocking reads until the
        // helper exits): Foundation's readability handler on Linux can crash
        // dispatch when the pipe is closed while it is armed.
        let handle = output.fileHandleForReading
        Thread { [lines, partial] in
            while true {
                let data = handle.availableData
                if data.isEmpty { return }
                let text = String(decoding: data, as: UTF8.self)
                let complete: [String] = partial.withLock { partial in
                    partial += text
                    var parts = partial.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                    partial = parts.removeLast()
                    return parts
                }
                lines.withLock { $0 += complete }
            }
        }.start()
        if let ready {
            _ = try #require(next(ready), "\(name) did not start: \(complaint)", sourceLocation: sourceLocation)
        }
    }

    deinit {
        if process.isRunning { sendSignal(process.processIdentifier, SIGKILL) }
    }

    /// What the helper wrote to standard error.
    var complaint: String {
        if process.isRunning { return "" }
        return String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
    }

    func send(_ command: String) {
        input.fileHandleForWriting.write(Data((command + "\n").utf8))
    }

    /// Sends `command` and returns the answer starting with `prefix`.
    func run(_ command: String, answer prefix: String = "ok") -> String? {
        send(command)
        return next(prefix)
    }

    /// The first line starting with `prefix` (taken out; the others stay),
    /// waiting for it up to `timeout` seconds.
    func next(_ prefix: String, timeout: Double = 30) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let found: String? = lines.withLock { lines in
                guard let index = lines.firstIndex(where: { $0.hasPrefix(prefix) }) else { return nil }
                return lines.remove(at: index)
            }
            if let found { return found }
            usleep(1000)
        } while Date() < deadline
        return nil
    }

    /// The lines starting with `prefix` that arrived so far, taken out.
    func take(_ prefix: String) -> [String] {
        lines.withLock { lines in
            let taken = lines.filter { $0.hasPrefix(prefix) }
            lines.removeAll { $0.hasPrefix(prefix) }
            return taken
        }
    }

    func kill(_ signal: Int32 = SIGKILL) {
        sendSignal(process.processIdentifier, signal)
        process.waitUntilExit()
    }

    func quit() {
        send("quit")
        process.waitUntilExit()
    }
}

private func sendSignal(_ pid: pid_t, _ signal: Int32) { _ = kill(pid, signal) }

/// Issue 30 with real processes: each ChronicleSharingChild opens the same
/// store file, writes and observes on command.
@Suite("Sharing a journal between processes", .serialized)
struct SharedJournalProcessTests {
    @Test(.timeLimit(.minutes(2)))
    func twoWritersInterleaveGapFreeAndEndWithTheSameState() throws {
        let url = try JournalFixtures.journalURL()
        let a = try SharingProcess(url), b = try SharingProcess(url)
        #expect(a.run("create 1 0") != nil)
        #expect(b.run("create 2 0") != nil)
        // Both at once: their writes interleave on the one journal.
        a.send("increment 1 30")
        b.send("increment 2 30")
        #expect(a.next("ok") != nil)
        #expect(b.next("ok") != nil)
        let last: UInt64 = 1 + 2 + 60
        #expect(a.run("wait \(last)", answer: "version") == "version \(last)")
        #expect(b.run("wait \(last)", answer: "version") == "version \(last)")
        let expected = "state \(last) 1:30:,2:30:"
        #expect(a.run("state", answer: "state") == expected)
        #expect(b.run("state", answer: "state") == expected)
        let journal = try Journal(contentsOf: url)
        #expect(Array(journal.commits()).map(\.version) == Array(1...last))
        let store = try SharedJournalTests.open(url)
        #expect(SharedJournalTests.scores(store) == [1: 30, 2: 30])
        a.quit()
        b.quit()
    }

    @Test(.timeLimit(.minutes(2)))
    func observersInOneProcessSeeAnotherProcessesCommitsFilteredWithOldValues() throws {
        let url = try JournalFixtures.journalURL()
        let a = try SharingProcess(url), b = try SharingProcess(url)
        #expect(a.run("create 7 1") != nil)
        #expect(b.run("wait 2", answer: "version") == "version 2")
        #expect(b.run("observe 7 score") != nil)
        #expect(b.run("observe 7 -") != nil)
        #expect(a.run("set 7 name renamed") != nil)
        // The unfiltered observer sees the name; B's stream is read before
        // the next commit, which would otherwise be merged into one change
        // with it on a busy machine (a stream keeps one pending change).
        #expect(b.next("change 7 name") == "change 7 name:->renamed")
        #expect(a.run("set 7 score 5") != nil)
        #expect(b.run("wait 4", answer: "version") == "version 4")
        // Both see the score, with its old value; the filtered one saw
        // nothing of the name.
        #expect(b.next("change 7 score") == "change 7 score:1->5")
        #expect(b.next("change 7 score") == "change 7 score:1->5")
        usleep(100_000)
        #expect(b.take("change").isEmpty)
        // This parent process observes the helpers' commits as well.
        let store = try SharedJournalTests.open(url)
        let item = try #require(store.object(ofType: SharedItem.self, forPrimaryKey: 7))
        let seen = Locked<[String]>([])
        let token = item.observe(keyPaths: ["score"]) { change in
            if case .change(_, let properties) = change {
                seen.withLock { $0 += properties.map { "\($0.name):\($0.oldValue!)->\($0.newValue!)" } }
            }
        }
        #expect(a.run("set 7 score 6") != nil)
        let deadline = Date().addingTimeInterval(20)
        while seen.withLock({ $0.isEmpty }) && Date() < deadline { usleep(1000) }
        #expect(seen.withLock { $0 } == ["score:5->6"])
        token.invalidate()
        a.quit()
        b.quit()
    }

    @Test(.timeLimit(.minutes(2)))
    func aWriteCatchesUpWithAnotherProcessFirst() throws {
        let url = try JournalFixtures.journalURL()
        let store = try SharedJournalTests.open(url)
        store.stopFollowing()  // only the write's own catch-up may bring the helper's commits in
        let helper = try SharingProcess(url)
        #expect(helper.run("create 1 10") != nil)
        #expect(helper.run("increment 1 2") != nil)
        #expect(store.version == 1)
        try store.write {
            let item = try #require(store.object(ofType: SharedItem.self, forPrimaryKey: 1))
            #expect(item.score == 12)
            item.score += 1
        }
        #expect(store.version == 5)
        #expect(helper.run("wait 5", answer: "version") == "version 5")
        #expect(helper.run("state", answer: "state") == "state 5 1:13:")
        helper.quit()
    }

    #if os(Linux)
    /// A process killed while its store's follower slept leaves it counted
    /// in the shared area; a store that then opens the file alone forgets
    /// it, so its own commits wake no one.
    @Test(.timeLimit(.minutes(2)))
    func aStoreAloneAfterAProcessWasKilledIsNotWokenByItsOwnCommits() throws {
        let url = try JournalFixtures.journalURL()
        let helper = try SharingProcess(url)
        #expect(helper.run("create 1 0") != nil)
        usleep(100_000)  // the helper's follower is asleep by now
        helper.kill()
        let store = try SharedJournalTests.open(url)
        let area = try #require(store.journal.core.sharedArea)
        #expect(SharedJournalTests.eventually { area.ownSleepingFollowers == 1 })
        #expect(area.sleepingFollowers == 1)
        for _ in 0..<10 {
            try store.write { store.object(ofType: SharedItem.self, forPrimaryKey: 1)!.score += 1 }
        }
        #expect(store.followerWakeUps == 0)
        #expect(store.object(ofType: SharedItem.self, forPrimaryKey: 1)?.score == 10)
    }
    #endif

    @Test(.timeLimit(.minutes(2)))
    func aWriterKilledWhileHoldingTheLockLosesNothingCommitted() throws {
        let url = try JournalFixtures.journalURL()
        let a = try SharingProcess(url), b = try SharingProcess(url)
        #expect(a.run("create 1 0") != nil)
        #expect(b.run("increment 1 3") == "ok 5")
        #expect(a.run("hold 2", answer: "holding") != nil)
        // B's write waits for the lock A holds mid-write...
        b.send("increment 1 1")
        usleep(200_000)
        #expect(b.take("ok").isEmpty)
        // ...until A is killed: the kernel releases it, and B goes on.
        a.kill()
        #expect(b.next("ok") == "ok 6")
        #expect(b.run("state", answer: "state") == "state 6 1:4:")
        // Everything acknowledged is there, nothing of A's unfinished write.
        let journal = try Journal(contentsOf: url)
        #expect(Array(journal.commits()).map(\.version) == Array(1...6))
        let c = try SharingProcess(url)
        #expect(c.run("create 3 0") == "ok 7")
        #expect(b.run("wait 7", answer: "version") == "version 7")
        #expect(b.run("state", answer: "state") == "state 7 1:4:,3:0:")
        b.quit()
        c.quit()
    }

    @Test(.timeLimit(.minutes(2)))
    func chronicleLogFollowPrintsAnotherProcessesCommitsAsTheyCome() throws {
        let url = try JournalFixtures.journalURL()
        let writer = try SharingProcess(url)
        #expect(writer.run("create 1 0") != nil)
        let log = try SharingProcess(executable: "chronicle", ["log", url.path, "--follow"], ready: "    2")
        #expect(log.take("    1").count == 1)
        #expect(writer.run("set 1 score 5") != nil)
        let line = log.next("    3", timeout: 20)
        #expect(line?.contains("SharedItem") == true && line?.contains("score") == true)
        #expect(writer.run("set 1 name Ann") != nil)
        #expect(log.next("    4", timeout: 20)?.contains("name") == true)
        // It runs until interrupted.
        #expect(log.process.isRunning)
        log.kill(SIGINT)
        #expect(log.process.terminationReason == .uncaughtSignal)
        writer.quit()
    }

    /// A reader holds no lock, so a store may compact the journal while
    /// `log --follow` reads it: the follower notices the new file and goes
    /// on printing the commits that come after the compaction.
    @Test(.timeLimit(.minutes(2)))
    func chronicleLogFollowGoesOnAfterACompaction() throws {
        let url = try JournalFixtures.journalURL()
        let store = try Store(configuration: .init(fileURL: url, objectTypes: [SharedItem.self]))
        try store.write { store.create(SharedItem.self, value: ["id": 1, "score": 0]) }
        let item = try #require(store.object(ofType: SharedItem.self, forPrimaryKey: 1))
        try store.write { item.score = 1 }
        let log = try SharingProcess(executable: "chronicle", ["log", url.path, "--follow"], ready: "    3")
        try store.compact()
        try store.write { item.score = 2 }
        let line = log.next("    4", timeout: 20)
        #expect(line?.contains("score") == true)
        try store.write { item.name = "Ann" }
        #expect(log.next("    5", timeout: 20)?.contains("name") == true)
        #expect(log.process.isRunning)
        log.kill(SIGINT)
        try store.close()
    }

    @Test(.timeLimit(.minutes(2)))
    func chronicleStateFollowPrintsTheNewestState() throws {
        let url = try JournalFixtures.journalURL()
        let writer = try SharingProcess(url)
        let state = try SharingProcess(executable: "chronicle", ["state", url.path, "--type", "SharedItem", "--follow"],
                                       ready: "version 1")
        #expect(writer.run("create 1 7") != nil)
        #expect(state.next("version 2", timeout: 20) != nil)
        #expect(state.next("SharedItem — 1 object", timeout: 20) != nil)
        state.kill(SIGINT)
        writer.quit()
    }

    @Test func followTakesNoEndVersion() throws {
        #expect(CLIParsingTests.usageError(["log", "j", "--follow", "--to", "3"]) == "--follow prints commits until interrupted; it takes no --to")
        #expect(CLIParsingTests.usageError(["state", "j", "--follow", "--at", "3"])
            == "--follow prints the newest state until interrupted; it takes no --at")
        #expect(try Invocation.parse(["log", "j", "--follow"]) == .log(path: "j", from: 1, to: nil, type: nil, follow: true))
        #expect(try Invocation.parse(["state", "j", "--follow"]) == .state(path: "j", at: nil, type: nil, json: false, follow: true))
    }
}
