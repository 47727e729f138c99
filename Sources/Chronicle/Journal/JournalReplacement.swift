import Foundation

extension Journal {
    /// Writes `commits` as a whole new journal whose first commit is
    /// `baseVersion + 1`, and puts it in place of the file at `url`
    /// atomically (``FileReplacement/replace(at:afterStep:write:)``: write a
    /// temporary file in the same directory, sync it, rename it over `url`,
    /// sync the directory). A crash at any point leaves
    /// at `url` either the old journal or the new one, whole (a leftover
    /// temporary file, `.<name>.replacing-<uuid>`, is never read).
    ///
    /// `afterStep` is a test seam: called after each step, it may throw to
    /// stop there as a crash would (nothing is cleaned up then).
    ///
    /// - Returns: whether the rename happened (the new journal is in place).
    /// - Complexity: O(size of the commits).
    @discardableResult
    static func replaceFile(at url: URL, baseVersion: UInt64, commits: [Commit],
                            afterStep: ((FileReplacementStep) throws(JournalError) -> Void)? = nil) throws(JournalError) -> Bool {
        for (index, commit) in commits.enumerated() where commit.version != baseVersion + 1 + UInt64(index) {
            throw .versionMismatch(expected: baseVersion + 1 + UInt64(index), found: commit.version)
        }
        try FileReplacement.replace(at: url, afterStep: afterStep) { (file) throws(JournalError) in
            // Header and records, written in chunks of about 1 MiB.
            var buffer = JournalFormat.makeHeader(baseVersion: baseVersion)
            var offset = 0
            func flush() throws(JournalError) {
                try buffer.withBytes { raw throws(JournalError) in try file.write(raw, at: offset) }
                offset += buffer.count
                buffer.removeAll(keepingCapacity: true)
            }
            for commit in commits {
                buffer += try JournalFormat.encodeRecord(commit)
                if buffer.count >= 1 << 20 { try flush() }
            }
            try flush()
        }
        return true
    }
}
