import Chronicle

/// `chronicle log`: one line per commit.
enum LogCommand {
    /// With `follow`, goes on with the commits other processes append, until interrupted.
    static func run(path: String, from: UInt64, to: UInt64?, type: String?, follow: Bool = false) throws(CLIError) {
        let journal = try JournalInput.open(path)
        var schema = SchemaTracker()
        var seenType = type == nil
        var last: UInt64 = 0
        func show(_ commit: Commit) {
            last = commit.version
            let before = schema
            let tables = schema.tables(of: commit)
            if let type, !seenType { seenType = schema.types.contains { $0.name == type } }
            guard commit.version >= from else { return }
            if let type {
                guard let table = schema.types.firstIndex(where: { $0.name == type }),
                      tables.contains(table) else { return }
            }
            print(line(commit, schemaBefore: before))
        }
        try JournalInput.forEach(journal, path: path, through: to, what: "reading") { show($0) }
        // A type the journal does not have yet may come: following waits for it.
        if let type, !seenType, !follow { throw .usage("the journal has no type \"\(type)\"") }
        if follow { try JournalInput.follow(journal, path: path, after: last) { show($0) } }
    }

    /// `   3  2026-…Z  label  summary`
    static func line(_ commit: Commit, schemaBefore: SchemaTracker) -> String {
        // Each event named with the schema as it was just before it (a
        // migration removes and renames properties as it goes).
        var tracker = schemaBefore
        let shown = commit.events.prefix(3).map { event in
            let before = tracker.types
            tracker.apply(event)
            return Render.summary(event, { if case .changeSchema = event { before } else { tracker.types } }())
        }
        var summary = shown.joined(separator: ", ")
        if commit.events.count > shown.count { summary += ", … (\(commit.events.count) events)" }
        if commit.events.isEmpty { summary = "(no events)" }
        // A migration (or a new journal) records the app's schema version.
        for case .changeSchema(.setSchemaVersion(let version)) in commit.events { summary = "schema version \(version); " + summary }
        let version = String(commit.version)
        let padded = String(repeating: " ", count: max(0, 5 - version.count)) + version
        return "\(padded)  \(Render.time(commit.timestamp))  \(commit.label.map { JSONLines.quote($0) } ?? "-")  \(summary)"
    }
}
