import Chronicle
import Foundation

/// `chronicle export --jsonl`: the commits as JSON Lines on standard output.
enum ExportCommand {
    static func run(path: String, from: UInt64, to: UInt64?) throws(CLIError) {
        let journal = try JournalInput.open(path)
        let to = to ?? journal.lastVersion
        try JournalInput.check(to, journal, path: path)
        var progress = Progress("exporting", total: to)
        defer { progress.done() }
        // One line per commit, from the first the journal has.
        var version = max(from, journal.baseVersion + 1)
        var buffer = Data()
        do {
            try journal.exportJSONLines(from: from, through: to) { line in
                buffer.append(contentsOf: line.utf8)
                if buffer.count >= 1 << 20 {
                    FileHandle.standardOutput.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
                progress.update(version)
                version += 1
            }
        } catch let error as StoreError {
            throw CLIError.from(error, path: path)
        } catch {
            throw .failed("\(error)")
        }
        FileHandle.standardOutput.write(buffer)
    }
}
