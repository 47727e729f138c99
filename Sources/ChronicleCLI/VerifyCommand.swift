import Chronicle
import Foundation

/// `chronicle verify`: checks every record and the fold.
enum VerifyCommand {
    static func run(path: String) throws(CLIError) {
        let journal: Journal
        do {
            journal = try JournalInput.open(path)
        } catch .damaged(let message) {
            print("FAILED: \(message)")
            throw .damaged("the journal is damaged")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        var state = StoreState()
        var events = 0
        try JournalInput.forEach(journal, path: path, what: "verifying") { (commit) throws(CLIError) in
            do {
                state = try state.applying(commit).state
            } catch {
                print("FAILED: commit \(commit.version) does not fold: \(error)")
                print("versions 1...\(commit.version - 1) are intact and fold")
                throw .damaged("the journal does not fold")
            }
            events += commit.events.count
        }
        print("ok: \(journal.lastVersion) commits, \(events) events, \(size) bytes; every record is whole, its checksum matches, and every commit folds")
        if journal.discardedTailBytes > 0 {
            print("note: a torn tail of \(journal.discardedTailBytes) bytes follows the last commit (an interrupted write); opening the journal for writing cuts it")
        }
        var objects = 0
        for table in state.schema.indices { objects += state.count(table: table) }
        print("state at version \(state.version): \(state.schema.count) types, \(objects) objects")
    }
}
