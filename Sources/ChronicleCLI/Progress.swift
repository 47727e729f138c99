import Foundation

/// Progress on standard error for long operations, only when it is a
/// terminal: redirected output (a log file, a pipe, a test capturing it)
/// sees none. `CLIProgressTests` runs the tool on a pseudo-terminal to
/// check both sides. Journals under 10,000 commits get none at all: they
/// finish before a progress line would be read.
struct Progress {
    private let total: UInt64
    private let what: String
    private let enabled = isatty(2) == 1
    private var last = Date.distantPast

    init(_ what: String, total: UInt64) {
        self.what = what
        self.total = total
    }

    /// Reports reaching `version`, at most ten times a second.
    mutating func update(_ version: UInt64) {
        guard enabled, total >= 10_000 else { return }
        let now = Date()
        guard now.timeIntervalSince(last) >= 0.1 else { return }
        last = now
        FileHandle.standardError.write(Data("\r\(what): version \(version) of \(total) (\(version * 100 / max(total, 1))%)".utf8))
    }

    /// Clears the progress line.
    func done() {
        guard enabled, total >= 10_000 else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}
