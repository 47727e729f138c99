import Chronicle
import Foundation

/// `chronicle studio`: the journal's Studio page, one self-contained HTML file.
enum StudioCommand {
    static func run(path: String, output: String?, open: Bool) throws(CLIError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .missingFile("\(path): no such file")
        }
        guard !isDirectory.boolValue else { throw .failed("\(path) is a directory, not a journal") }
        let journalURL = URL(fileURLWithPath: path)
        let target = output ?? journalURL.deletingPathExtension().lastPathComponent + ".studio.html"
        let url = URL(fileURLWithPath: target)
        do {
            try Journal.writeStudioPage(ofJournalAt: journalURL, to: url)
        } catch {
            // The page's own file failing is not the journal's fault.
            if case .io(_, _, let failed) = error, failed == url.path { throw .failed("\(target): \(error)") }
            if case .diskFull = error { throw .failed("\(target): \(error)") }
            throw CLIError.from(error, path: path)
        }
        print(url.path)
        if open { try openInBrowser(url) }
    }

    /// Opens `url` with `xdg-open` (Linux and BSDs) or `open` (macOS), whichever is on the PATH.
    static func openInBrowser(_ url: URL) throws(CLIError) {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        let opener = ["xdg-open", "open"].lazy.flatMap { name in directories.map { "\($0)/\(name)" } }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let opener else {
            throw .failed("the page is written, but neither xdg-open nor open is on the PATH to open it; open \(url.path) in a browser")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url.path]
        do { try process.run() } catch { throw .failed("\(opener) \(url.path) failed: \(error)") }
        process.waitUntilExit()
    }
}
