import Chronicle

/// `chronicle state`: the objects at a version, as tables or JSON.
enum StateCommand {
    /// With `follow`, prints the state again after each batch of commits
    /// other processes append, until interrupted.
    static func run(path: String, at: UInt64?, type: String?, json: Bool, follow: Bool = false) throws(CLIError) {
        let journal = try JournalInput.open(path)
        let version = at ?? journal.lastVersion
        var state = try JournalInput.state(journal, path: path, at: version)
        try show(state, type: type, json: json, waitingForType: follow)
        guard follow else { return }
        try JournalInput.follow(journal, path: path, after: state.version, { (commit) throws(CLIError) in
            do { state = try state.applying(commit).state } catch {
                throw .damaged("\(path): commit \(commit.version) does not fold: \(error)")
            }
        }, batchDone: {
            if json { print("") }
            try? show(state, type: type, json: json, waitingForType: true)
        })
    }

    /// Prints `state` (only `type`, if given). `waitingForType`: a missing
    /// type is not an error (following waits for it) and prints nothing.
    private static func show(_ state: StoreState, type: String?, json: Bool, waitingForType: Bool) throws(CLIError) {
        var tables = Array(state.schema.indices)
        if let type {
            guard let table = state.tableIndex(named: type) else {
                if waitingForType { return }
                throw .usage("version \(state.version) has no type \"\(type)\"")
            }
            tables = [table]
        }
        if json {
            printJSON(state, tables)
        } else {
            printTables(state, tables)
        }
    }

    static func printTables(_ state: StoreState, _ tables: [Int]) {
        print("version \(state.version)")
        for table in tables {
            let type = state.schema[table]
            let count = state.count(table: table)
            print("\n\(type.name)\(type.isEmbedded ? " (embedded)" : "") — \(count) object\(count == 1 ? "" : "s")")
            guard count > 0 else { continue }
            var rows = [["key"] + type.properties.map(\.name)]
            for (key, record) in state.objects(table: table) {
                rows.append([key.description] + record.values.map(\.description))
            }
            let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                let cells = zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }
                print("  " + cells.joined(separator: "  ").trimmingTrailingSpaces())
            }
        }
    }

    static func printJSON(_ state: StoreState, _ tables: [Int]) {
        print("{\"version\":\(state.version),\"types\":{")
        for (position, table) in tables.enumerated() {
            let type = state.schema[table]
            print("\(JSONLines.quote(type.name)):[")
            let objects = Array(state.objects(table: table))
            for (index, (key, record)) in objects.enumerated() {
                let members = ["\"#key\":\(key.rawValue)"] + zip(type.properties, record.values).map {
                    "\(JSONLines.quote($0.name)):\(JSONLines.encode($1))"
                }
                print("{" + members.joined(separator: ",") + "}" + (index < objects.count - 1 ? "," : ""))
            }
            print("]" + (position < tables.count - 1 ? "," : ""))
        }
        print("}}")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
