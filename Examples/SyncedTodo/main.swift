import Chronicle
import ChronicleSync
import Foundation

// SyncedTodo: one shared to-do list, edited from several processes through a
// local chronicle-server. Start the server, then run this in two terminals:
//
//   bash Examples/SyncedTodo/start-server      # PostgreSQL + chronicle-server on 127.0.0.1:8080
//   swift run SyncedTodo alice                 # terminal 1
//   swift run SyncedTodo bob                   # terminal 2
//
// Type `add milk`, `done 1`, `rename 1 oat milk`, `delete 1`, `list`, `quit`.
// Each process keeps its own journal (/tmp/synced-todo-NAME.journal): stop
// the server, edit on both sides, start it again and watch them merge.

final class TodoItem: Object {
    @Persisted(primaryKey: true) var id = UUID()
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted var created = Date()
}
extension TodoItem: @unchecked Sendable {}

let arguments = CommandLine.arguments.dropFirst()
let name = arguments.first ?? "alice"
let server = URL(string: ProcessInfo.processInfo.environment["SYNCED_TODO_SERVER"] ?? "http://127.0.0.1:8080")!
let token = ProcessInfo.processInfo.environment["SYNCED_TODO_TOKEN"] ?? "synced-todo-demo-token"
let url = URL(fileURLWithPath: "/tmp/synced-todo-\(name).journal")
let store = try Store(configuration: .init(fileURL: url, objectTypes: [TodoItem.self]))
let session = SyncSession(store: store, server: server, scope: "synced-todo", token: token)
session.start()

func sortedItems() -> [TodoItem] { store.objects(TodoItem.self).sorted { $0.created < $1.created } }

func printList() {
    print("— \(name)'s view —")
    for (index, item) in sortedItems().enumerated() {
        print(" \(index + 1). [\(item.done ? "x" : " ")] \(item.title)")
    }
}

// Print the list whenever it changes, whoever changed it (detached: the main
// thread blocks in readLine).
let items = store.objects(TodoItem.self)
let watcher = Task.detached {
    for await change in items.changes() {
        if case .update = change { printList() }
    }
}
let states = Task.detached {
    for await state in session.states {
        if case .error(let error) = state { print("(sync: \(error))") }
    }
}

printList()
while let line = readLine() {
    let words = line.split(separator: " ", maxSplits: 1).map(String.init)
    guard let command = words.first else { continue }
    let rest = words.count > 1 ? words[1] : ""
    func item(_ text: String) -> TodoItem? {
        guard let number = Int(text.split(separator: " ").first ?? ""), number >= 1, number <= sortedItems().count else {
            print("no item \(text)")
            return nil
        }
        return sortedItems()[number - 1]
    }
    switch command {
    case "add":
        try store.write(label: "add") { store.create(TodoItem.self, value: ["title": rest, "created": Date()]) }
    case "done":
        if let item = item(rest) { try store.write(label: "done") { item.done.toggle() } }
    case "rename":
        let parts = rest.split(separator: " ", maxSplits: 1).map(String.init)
        if parts.count == 2, let item = item(parts[0]) { try store.write(label: "rename") { item.title = parts[1] } }
    case "delete":
        if let item = item(rest) { try store.write(label: "delete") { store.delete(item) } }
    case "list":
        printList()
    case "quit":
        session.stop()
        exit(0)
    default:
        print("commands: add TITLE, done N, rename N TITLE, delete N, list, quit")
    }
}
session.stop()
