// The helper process of the sharing tests (SharedJournalProcessTests): one
// of several processes that open one store.
//
//   ChronicleSharingChild <journal path> [--durability full|none]
//
// Opens a Store of `SharedItem` (the tests' model) on the journal, prints
// "ready <version>", then runs one command a line from standard input,
// answering each with one line (unbuffered: one write(2) a line):
//   create <id> <score>          a write that creates the item     -> "ok <version>"
//   set <id> score|name <value>  a write that sets a property      -> "ok <version>"
//   increment <id> <times>       that many writes, each score += 1 -> "ok <version>"
//   observe <id> <key paths>     observes the item (key paths comma-separated,
//                                "-" for all); then every change prints
//                                "change <id> <name>:<old>-><new>;..." or "deleted <id>" -> "ok"
//   wait <version>               until the store has that version (it follows the
//                                journal by itself; 20 s at most) -> "version <v>" or "timeout <v>"
//   state                        -> "state <version> <id>:<score>:<name>,..." (by id)
//   hold <id>                    starts a write that creates the item and never ends it,
//                                holding the lock: prints "holding", for a SIGKILL
//   quit                         exits 0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Chronicle
import Foundation

final class SharedItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var score = 0
}
extension SharedItem: @unchecked Sendable {}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ChronicleSharingChild: \(message)\n".utf8))
    exit(1)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var durability = Durability.full
if let index = arguments.firstIndex(of: "--durability"), index + 1 < arguments.count {
    durability = arguments[index + 1] == "none" ? .none : .full
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.count == 1 else { fail("usage: ChronicleSharingChild <journal path> [--durability full|none]") }
let store: Store
do {
    store = try Store(configuration: .init(fileURL: URL(fileURLWithPath: arguments[0]), durability: durability,
                                           objectTypes: [SharedItem.self]))
} catch {
    fail("\(error)")
}
say("ready \(store.version)")

func item(_ id: Int) -> SharedItem {
    guard let item = store.object(ofType: SharedItem.self, forPrimaryKey: id) else { fail("no item \(id)") }
    return item
}

@Sendable func describe(_ value: (any Sendable)?) -> String { value.map { "\($0)" } ?? "nil" }

var observers: [Task<Void, Never>] = []
while let line = readLine() {
    let words = line.split(separator: " ").map(String.init)
    guard let command = words.first else { continue }
    func int(_ index: Int) -> Int {
        guard index < words.count, let value = Int(words[index]) else { fail("bad command: \(line)") }
        return value
    }
    do {
        switch command {
        case "create":
            let (id, score) = (int(1), int(2))
            try store.write { store.create(SharedItem.self, value: ["id": id, "score": score]) }
            say("ok \(store.version)")
        case "set":
            guard words.count == 4 else { fail("bad command: \(line)") }
            try store.write {
                let object = item(int(1))
                if words[2] == "score" { object.score = int(3) } else { object.name = words[3] }
            }
            say("ok \(store.version)")
        case "increment":
            for _ in 0..<int(2) {
                try store.write { item(int(1)).score += 1 }
            }
            say("ok \(store.version)")
        case "observe":
            let id = int(1)
            let paths = words.count > 2 && words[2] != "-" ? words[2].split(separator: ",").map(String.init) : []
            // A stream consumed on a task of its own, not an `observe`
            // callback: this program blocks its main thread reading
            // commands, so deliveries on the main actor (the callbacks'
            // default) would never run.
            let changes: ObjectChanges<SharedItem>
            do { changes = try item(id).changes(keyPaths: paths) } catch { fail("\(error)") }
            observers.append(Task.detached { for await change in changes {
                switch change {
                case .change(_, let properties):
                    say("change \(id) " + properties.map { "\($0.name):\(describe($0.oldValue))->\(describe($0.newValue))" }.joined(separator: ";"))
                case .deleted:
                    say("deleted \(id)")
                case .error(let error):
                    say("error \(error)")
                }
            } })
            say("ok")
        case "wait":
            let version = UInt64(int(1))
            let deadline = Date().addingTimeInterval(20)
            while store.version < version && Date() < deadline { usleep(500) }
            say(store.version >= version ? "version \(store.version)" : "timeout \(store.version)")
        case "state":
            let items = store.objects(SharedItem.self).sorted { $0.id < $1.id }.map { "\($0.id):\($0.score):\($0.name)" }
            say("state \(store.version) " + items.joined(separator: ","))
        case "hold":
            let id = int(1)
            try store.write {
                store.create(SharedItem.self, value: ["id": id])
                say("holding")
                while true { sleep(60) }
            }
        case "quit":
            exit(0)
        default:
            fail("unknown command: \(line)")
        }
    } catch {
        say("error \(error)")
    }
}
