import Chronicle

/// `chronicle show`: one commit in full.
enum ShowCommand {
    static func run(path: String, version: UInt64) throws(CLIError) {
        let journal = try JournalInput.open(path)
        try JournalInput.check(version, journal, path: path)
        var schema = SchemaTracker()
        try JournalInput.forEach(journal, path: path, through: version, what: "reading") { commit in
            guard commit.version == version else { return schema.apply(commit) }
            print("version   \(commit.version)")
            print("time      \(Render.time(commit.timestamp))")
            print("label     \(commit.label.map { JSONLines.quote($0) } ?? "-")")
            if commit.metadata.isEmpty {
                print("metadata  -")
            } else {
                for (index, key) in commit.metadata.keys.sorted().enumerated() {
                    print("\(index == 0 ? "metadata" : "        ")  \(key): \(JSONLines.quote(commit.metadata[key]!))")
                }
            }
            print("events    \(commit.events.count)")
            var tracker = schema
            for (index, event) in commit.events.enumerated() {
                // Schema events of this commit name what follows them; a
                // schema change names what it changes as it was before.
                let before = tracker.types
                tracker.apply(Commit(version: 0, timestamp: commit.timestamp, events: [event]))
                let names = if case .changeSchema = event { before } else { tracker.types }
                print("  [\(index)] \(Render.detail(event, names))")
            }
        }
    }
}
