import Chronicle
import Foundation

/// `chronicle import`: a new journal from JSON Lines.
enum ImportCommand {
    static func run(input: String, output: String) throws(CLIError) {
        guard FileManager.default.fileExists(atPath: input) else { throw .missingFile("\(input): no such file") }
        guard !FileManager.default.fileExists(atPath: output) else {
            throw .failed("\(output) exists; import writes a new journal and never overwrites one")
        }
        do {
            let journal = try Journal(fileURL: URL(fileURLWithPath: output), durability: .none)
            let count: Int
            do {
                count = try journal.importJSONLines(from: URL(fileURLWithPath: input))
            } catch {
                try? journal.close()
                try? FileManager.default.removeItem(atPath: output)
                throw CLIError.damaged("\(input): \(error)")
            }
            try journal.sync()
            try journal.close()
            print("imported \(count) commits into \(output)")
        } catch let error as CLIError {
            throw error
        } catch {
            throw .failed("\(output): \(error)")
        }
    }
}
