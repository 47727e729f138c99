// The child process of the crash tests (JournalCrashTests, scripts/crash-run).
//
//   ChronicleCrashChild <journal path> [--store] [--writers N] [--id K] [--wide]
//       Appends commits forever with full durability, printing each one
//       (unbuffered, one write(2) a line) only after it returned:
//       It prints "ready" once the journal is open, then journal mode
//       prints "<version>", store mode "<writer> <seq>".
//   ChronicleCrashChild --verify <journal path> <printed output file> [--store] [--wide]
//       Opens the journal the killed child left and checks it: every
//       printed commit survived, and no commit is partial. Prints
//       "ok <commits> <reported>" or one "VIOLATION ..." line each; exits 1 on any.
//
// Journal mode appends `crashCommit(version)` (JournalCrashTests.expectedCommit
// builds the same); `--wide` makes every 16th commit 64-264 KB and gives
// commits 1-4 events. Store mode writes through a `Store`: each commit adds
// a `CrashItem` (payload size varied by its id) and sets its writer's
// `CrashProgress.count` in the same commit, so a partial commit shows as an
// item without its count or a count without its item. `--writers N` commits
// from N threads at once (group commit). `--id K` numbers the writers from
// 100 K, so that several processes can write one store at once
// (scripts/crash-run --processes) and their printed lines be verified together.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Chronicle
import Foundation

/// The commit for `version`; JournalCrashTests.expectedCommit must build the same.
func crashCommit(_ version: UInt64) -> Commit {
    let length = Int((version &* 7919) % 3000)
    let text = String(repeating: Character(UnicodeScalar(UInt8(97 + version % 26))), count: length)
    return Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)),
                  label: "crash \(version)", events: [.set(table: 0, key: ObjectKey(Int64(version)), property: 0, value: .string(text))])
}

/// `--wide`: varied sizes (every 16th commit large) and 1-4 events.
func wideCommit(_ version: UInt64) -> Commit {
    let length = version % 16 == 0 ? 65_536 + Int((version &* 7919) % 200_000) : Int((version &* 7919) % 3000)
    let text = String(repeating: Character(UnicodeScalar(UInt8(97 + version % 26))), count: length)
    let events = (0..<Int(version % 4) + 1).map { index in
        Event.set(table: index, key: ObjectKey(Int64(version)), property: index, value: index == 0 ? .string(text) : .int(Int64(version)))
    }
    return Commit(version: version, timestamp: Date(timeIntervalSinceReferenceDate: Double(version)),
                  label: "crash \(version)", events: events)
}

final class CrashItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var writer = 0
    @Persisted var seq = 0
    @Persisted var payload = ""
}
extension CrashItem: @unchecked Sendable {}

final class CrashProgress: Object {
    @Persisted(primaryKey: true) var writer = 0
    @Persisted var count = 0
}
extension CrashProgress: @unchecked Sendable {}

func itemID(writer: Int, seq: Int) -> Int { writer * 10_000_000 + seq }

func payload(writer: Int, seq: Int, wide: Bool) -> String {
    let id = itemID(writer: writer, seq: seq)
    let length = wide && seq % 16 == 0 ? 65_536 + (id &* 7919) % 100_000 : (id &* 7919) % 2000
    return String(repeating: Character(UnicodeScalar(UInt8(97 + id % 26))), count: length)
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ChronicleCrashChild: \(message)\n".utf8))
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
@MainActor func flag(_ name: String) -> Bool {
    guard let index = arguments.firstIndex(of: name) else { return false }
    arguments.remove(at: index)
    return true
}
@MainActor func option(_ name: String) -> Int? {
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    defer { arguments.removeSubrange(index...(index + 1)) }
    return Int(arguments[index + 1])
}
let verify = flag("--verify"), storeMode = flag("--store"), wide = flag("--wide")
let writers = max(1, option("--writers") ?? 1)
let firstWriter = 100 * max(0, option("--id") ?? 0)
guard arguments.count == (verify ? 2 : 1) else {
    fail("usage: ChronicleCrashChild [--verify] <journal path> [printed file] [--store] [--writers N] [--wide]")
}
let url = URL(fileURLWithPath: arguments[0])
let configuration = Store.Configuration(fileURL: url, durability: .full, objectTypes: [CrashItem.self, CrashProgress.self])

// MARK: Verify

if verify {
    let printed = (try? String(contentsOfFile: arguments[1], encoding: .utf8)) ?? ""
    // Only whole lines: the kill may land mid-line.
    let lines = printed.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    var violations: [String] = []
    var commits = 0
    if storeMode {
        let reported = lines.compactMap { line -> (Int, Int)? in
            let parts = line.split(separator: " ").compactMap { Int($0) }
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        }
        do {
            let store = try Store(configuration: configuration)
            commits = Int(store.version)
            var counts: [Int: Int] = [:]
            for progress in store.objects(CrashProgress.self) { counts[progress.writer] = progress.count }
            var items: [Int: [Int]] = [:]
            for item in store.objects(CrashItem.self) {
                items[item.writer, default: []].append(item.seq)
                if item.id != itemID(writer: item.writer, seq: item.seq) || item.payload != payload(writer: item.writer, seq: item.seq, wide: wide) {
                    violations.append("item \(item.id) has the wrong content")
                }
            }
            for (writer, seqs) in items where seqs.sorted() != (0..<(counts[writer] ?? 0)).map({ $0 + 1 }) {
                violations.append("writer \(writer): items \(seqs.count) (max \(seqs.max() ?? 0)) but count \(counts[writer] ?? 0): a partial commit")
            }
            for (writer, count) in counts where count > 0 && items[writer] == nil {
                violations.append("writer \(writer): count \(count) without items: a partial commit")
            }
            for (writer, seq) in reported where seq > (counts[writer] ?? 0) {
                violations.append("writer \(writer) seq \(seq) was reported committed but is missing")
            }
        } catch {
            violations.append("the store did not open: \(error)")
        }
        for violation in violations { say("VIOLATION \(violation)") }
        say("\(violations.isEmpty ? "ok" : "failed") \(commits) \(reported.count)")
    } else {
        let reported = lines.compactMap { UInt64($0) }
        do {
            let journal = try Journal(fileURL: url, durability: .none)
            var reader = journal.reader()
            var version: UInt64 = 0
            while let commit = try reader.next() {
                version += 1
                if commit != (wide ? wideCommit(version) : crashCommit(version)) { violations.append("commit \(version) differs") }
            }
            commits = Int(version)
            if let highest = reported.max(), highest > version {
                violations.append("version \(highest) was reported committed but the journal ends at \(version)")
            }
        } catch {
            violations.append("the journal did not open: \(error)")
        }
        for violation in violations { say("VIOLATION \(violation)") }
        say("\(violations.isEmpty ? "ok" : "failed") \(commits) \(reported.count)")
    }
    exit(violations.isEmpty ? 0 : 1)
}

// MARK: Write until killed

if storeMode {
    let store: Store
    do { store = try Store(configuration: configuration) } catch { fail("\(error)") }
    var counts: [Int: Int] = [:]
    for progress in store.objects(CrashProgress.self) { counts[progress.writer] = progress.count }
    let start = counts
    say("ready")
    let threads = (firstWriter..<firstWriter + writers).map { writer in
        Thread {
            var seq = start[writer] ?? 0
            while true {
                seq += 1
                let item = CrashItem()
                item.id = itemID(writer: writer, seq: seq)
                item.writer = writer
                item.seq = seq
                item.payload = payload(writer: writer, seq: seq, wide: wide)
                do {
                    try store.write {
                        store.add(item)
                        store.create(CrashProgress.self, value: ["writer": writer, "count": seq], update: .modified)
                    }
                } catch { fail("\(error)") }
                say("\(writer) \(seq)")
            }
        }
    }
    threads.forEach { $0.start() }
    while true { sleep(60) }
} else {
    let journal: Journal
    do { journal = try Journal(fileURL: url, durability: .full) } catch { fail("\(error)") }
    say("ready")
    if writers == 1 {
        var version = journal.lastVersion
        while true {
            version += 1
            do { try journal.append(wide ? wideCommit(version) : crashCommit(version)) } catch { fail("\(error)") }
            // One unbuffered write(2) a line, so a line is whole or absent.
            say("\(version)")
        }
    }
    // Several committers: number and write under one lock, wait for durability outside it.
    let numbering = NSLock()
    for _ in 0..<writers {
        Thread {
            while true {
                numbering.lock()
                let version = journal.lastVersion + 1
                let ticket: DurabilityTicket
                do { ticket = try journal.write(wide ? wideCommit(version) : crashCommit(version)) } catch { fail("\(error)") }
                numbering.unlock()
                do { try journal.waitUntilDurable(ticket) } catch { fail("\(error)") }
                say("\(version)")
            }
        }.start()
    }
    while true { sleep(60) }
}
