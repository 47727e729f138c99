import Chronicle
import Foundation

/// `chronicle stats`: counts and sizes.
enum StatsCommand {
    static func run(path: String) throws(CLIError) {
        let journal = try JournalInput.open(path)
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var schema = SchemaTracker()
        var events = 0, labelled = 0
        var byKind: [String: Int] = [:], byType: [String: Int] = [:]
        var first: Date?, last: Date?
        try JournalInput.forEach(journal, path: path, what: "counting") { commit in
            let tables = schema.tables(of: commit)
            events += commit.events.count
            if commit.label != nil { labelled += 1 }
            first = first ?? commit.timestamp
            last = commit.timestamp
            for (event, table) in zip(commit.events, tables) {
                byKind[Render.kind(event), default: 0] += 1
                if let table { byType[Render.typeName(schema.types, table), default: 0] += 1 }
            }
        }
        print("file      \(path)")
        print("size      \(size) bytes")
        print("commits   \(journal.lastVersion) (\(labelled) labelled)")
        print("events    \(events)")
        if let first, let last { print("time      \(Render.time(first)) … \(Render.time(last))") }
        print("types     \(schema.types.map(\.name).joined(separator: ", "))")
        print("\nevents per kind")
        for (kind, count) in byKind.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) { print("  \(pad(kind))  \(count)") }
        print("\nevents per type")
        for (type, count) in byType.sorted(by: { ($1.value, $0.key) < ($0.value, $1.key) }) { print("  \(pad(type))  \(count)") }
    }

    static func pad(_ text: String) -> String { text + String(repeating: " ", count: max(0, 12 - text.count)) }
}
