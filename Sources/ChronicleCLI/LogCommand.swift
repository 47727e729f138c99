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
            let tables = schema.tables(of: commit)
            if let type, !seenType { seenType = schema.types.contains { $0.name == type } }
            guard commit.version >= from else { return }
            if let type {
                guard let table = schema.types.firstIndex(where: { $0.name == type }),
                      tables.contains(table) else { return }
            }
            print(line(commit, schema: schema.types))
        }
        try JournalInput.forEach(journal, path: path, through: to, what: "reading") { show($0) }
        // A type the journal does not have yet may come: following waits for it.
        if let type, !seenType, !follow { throw .usage("the journal has no type \"\(type)\"") }
        if follow { try JournalInput.follow(journal, path: path, after: last) { show($0) } }
    }

    /// `   3  2026-…Z  label  summary`
    static func line(_ commit: Commit, schema: [TypeSchema]) -> String {
        let shown = commit.events.prefix(3).map { Render.summary($0, schema) }
        var summary = shown.joined(separator: ", ")
        if commit.events.count > shown.count { summary += ", … (\(commit.events.count) events)" }
        if commit.events.isEmpty { summary = "(no events)" }
        let version = String(commit.version)
        let padded = String(repeating: " ", count: max(0, 5 - version.count)) + version
        return "\(padded)  \(Render.time(commit.timestamp))  \(commit.label.map { JSONLines.quote($0) } ?? "-")  \(summary)"
    }
}
