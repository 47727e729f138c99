import Chronicle
import Foundation

/// `chronicle export --jsonl`: the commits as JSON Lines on standard output.
enum ExportCommand {
    static func run(_ words: [String]) throws(CLIError) {
        guard let arguments = try Arguments.parse(words, command: "export", options: ["from", "to"], flags: ["jsonl"], positional: 1...1) else { return }
        guard arguments.flags.contains("jsonl") else { throw .usage("name the format: --jsonl") }
        let path = arguments.positional[0]
        let journal = try JournalInput.open(path)
        let from = try arguments.version("from") ?? 1
        let to = try arguments.version("to") ?? journal.lastVersion
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
