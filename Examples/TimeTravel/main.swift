import Chronicle
import Foundation

// TimeTravel: build a small labelled history, then look back at it —
// frozen(at:), history(of:keyPath:), diff(from:to:) and a replay that leaves
// one commit out.
//
//   swift run TimeTravel [journal-path]
//
// Then inspect the same journal with `swift run chronicle log <path>`.

let url: URL
if CommandLine.arguments.count > 1 {
    url = URL(fileURLWithPath: CommandLine.arguments[1])
} else {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("timetravel-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    url = folder.appendingPathComponent("tasks.journal")
}

let store = try Store(configuration: .init(fileURL: url, objectTypes: [Task.self, Member.self]))
let ada = Member()
ada.name = "Ada"
let task = Task()
task.id = 1
task.title = "Write the parser"
try store.write(label: "plan") { store.add(task); store.add(ada) }
try store.write(label: "assign") { task.assignee = ada }
try store.write(label: "rename") { task.title = "Write the JSON parser" }
let bob = try store.write(label: "hire Bob") { store.create(Member.self, value: ["name": "Bob"]) }
try store.write(label: "reassign") { task.assignee = bob }
try store.write(label: "finish") { task.done = true }
print("wrote version \(store.version) to \(url.path)\n")

// 1. Time travel: the store as it was after "rename".
let past = try store.frozen(at: 4)
let then = past.object(ofType: Task.self, forPrimaryKey: 1)!
print("at version \(past.version) (\(past.label ?? "")): \"\(then.title)\", done: \(then.done), assignee: \(then.assignee?.name ?? "nobody")")
print("members then: \(past.objects(Member.self).map(\.name).sorted())\n")

// 2. Who changed the title, and when?
for entry in try store.history(of: task, keyPath: \.title) {
    // Typed: the key path says String, so the values are Strings.
    print("title, version \(entry.version) [\(entry.label ?? "")]: \(entry.oldValue.map { "\"\($0)\"" } ?? "(created)") → \(entry.newValue.map { "\"\($0)\"" } ?? "(deleted)")")
}
print()

// 3. Everything that happened to the task.
for entry in try store.history(of: task) {
    switch entry.change {
    case .created: print("version \(entry.version) [\(entry.label ?? "")]: created")
    case .modified(let changes): print("version \(entry.version) [\(entry.label ?? "")]: " + changes.map { "\($0.name) \($0.oldValue) → \($0.newValue)" }.joined(separator: ", "))
    case .deleted: print("version \(entry.version) [\(entry.label ?? "")]: deleted")
    }
}
print()

// 4. What changed between the plan and now?
let diff = try store.diff(from: 2, to: store.version)
print("diff 2 → \(store.version): inserted \(diff.inserted.map { "\($0.typeName) \($0.primaryKey?.description ?? "")" }), changed \(diff.modified.flatMap { $0.changes.map(\.name) })\n")

// 5. As if Bob had never been hired: replay the journal without commit 5.
let copy = try Journal(contentsOf: url)  // read-only; a copy someone sent you works the same
let replay = try Store.replaying(copy, excluding: [5])
let alternative = replay.store.object(ofType: Task.self, forPrimaryKey: 1)!
print("without \"hire Bob\": assignee \(alternative.assignee?.name ?? "nobody"), done: \(alternative.done)")
for skipped in replay.skippedEvents(causedBy: 5) {
    print("  skipped: version \(skipped.version), event \(skipped.eventIndex): \(skipped.error.reason)")
}
print()

// 6. The next release: `done: Bool` became `status: String`. The migration
// runs once, as one commit; the versions before it keep their schema.
try store.close()
var release2 = Store.Configuration(fileURL: url, objectTypes: [Release2.Task.self])
release2.schemaVersion = 1
release2.migration = { migration, oldSchemaVersion in
    migration.enumerateObjects(ofType: "Task") { old, new in
        new?["status"] = .string(old?["done", as: Bool.self] == true ? "done" : "open")
    }
}
let migrated = try Store(configuration: release2)
let migration = Array(migrated.journalForReading.commits()).last!
let before = try migrated.frozen(at: migration.version - 1).state
var schema = before.schema
var changes: [String] = []
for event in migration.events {
    switch event {
    case .addProperty(let table, let property): changes.append("\(schema[table].name).\(property.name) added")
    case .changeSchema(let change): changes.append(change.summary(in: schema)); schema = change.applied(to: schema)
    default: break
    }
}
print("version \(migration.version) [\(migration.label ?? "")]: \(changes.joined(separator: ", "))")
print("now: " + migrated.objects(Release2.Task.self).map { "\"\($0.title)\" is \($0.status)" }.joined(separator: ", "))
print("before the migration, Task had: \(before.schema[before.tableIndex(named: "Task")!].properties.map(\.name))")
