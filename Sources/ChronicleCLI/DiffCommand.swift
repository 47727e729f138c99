import Chronicle

/// `chronicle diff`: what changed between two versions.
enum DiffCommand {
    static func run(path: String, from: UInt64, to: UInt64) throws(CLIError) {
        let journal = try JournalInput.open(path)
        try JournalInput.check(from, journal, path: path)
        try JournalInput.check(to, journal, path: path)
        let diff: StoreDiff
        do { diff = try journal.diff(from: from, to: to) } catch { throw CLIError.from(error, path: path) }
        print("diff \(from) → \(to): \(diff.inserted.count) inserted, \(diff.deleted.count) deleted, \(diff.modified.count) changed")
        for event in diff.schemaChanges {
            switch event {
            case .defineType(let type): print("  schema: new type \(type.name)")
            case .addProperty(_, let property): print("  schema: new property \(Render.property(property))")
            default: break
            }
        }
        for object in diff.inserted {
            print("+ \(object.typeName)\(object.key) " + object.values.map { "\($0.name): \($0.value)" }.joined(separator: ", "))
        }
        for object in diff.deleted {
            print("- \(object.typeName)\(object.key) " + object.values.map { "\($0.name): \($0.value)" }.joined(separator: ", "))
        }
        for object in diff.modified {
            print("~ \(object.typeName)\(object.key) " + object.changes.map { "\($0.name): \($0.oldValue) → \($0.newValue)" }.joined(separator: ", "))
        }
    }
}
