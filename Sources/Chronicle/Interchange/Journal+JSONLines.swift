import Foundation

extension Journal {
    /// Writes commits `from...through` as JSON Lines (see ``JSONLines``),
    /// streaming: one call of `write` per line, newline included.
    ///
    /// - Parameters:
    ///   - from: The first version (1 by default).
    ///   - through: The last version (the journal's last by default).
    ///   - write: Receives each line.
    /// - Throws: ``StoreError/versionOutOfRange(requested:available:)``,
    ///   ``StoreError/journal(_:)`` when a commit cannot be read, or what `write` throws.
    /// - Complexity: O(size of the commits written).
    public func exportJSONLines(from: UInt64 = 1, through: UInt64? = nil, to write: (String) throws -> Void) throws {
        let last = through ?? lastVersion
        guard last <= lastVersion else { throw StoreError.versionOutOfRange(requested: last, available: 0...lastVersion) }
        var reader = self.reader(from: from)
        while reader.nextVersion <= last {
            let next: Commit?
            do { next = try reader.next() } catch { throw StoreError.journal(error) }
            guard let commit = next else { break }
            try write(JSONLines.encode(commit) + "\n")
        }
    }

    /// Writes commits `from...through` as a JSON Lines file at `url` (replacing it).
    /// - Throws: as ``exportJSONLines(from:through:to:)-(_,_,(String)->Void)``, or the file's error.
    public func exportJSONLines(from: UInt64 = 1, through: UInt64? = nil, to url: URL) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw JSONLinesError.unreadable("cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var buffer = Data()
        try exportJSONLines(from: from, through: through) { line in
            buffer.append(contentsOf: line.utf8)
            if buffer.count >= 1 << 20 {
                try handle.write(contentsOf: buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        try handle.write(contentsOf: buffer)
    }

    /// Appends the commits of a JSON Lines file, in order: importing an
    /// export of a whole journal into a new journal gives an identical journal.
    ///
    /// Each line's version must follow the journal's last. Blank lines are
    /// skipped. The file is read in chunks, never whole. Lines before the
    /// first bad one stay appended.
    ///
    /// - Returns: The number of commits appended.
    /// - Throws: ``JSONLinesError`` naming the line.
    /// - Complexity: O(size of the file).
    @discardableResult
    public func importJSONLines(from url: URL) throws(JSONLinesError) -> Int {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw .unreadable("\(url.path): \(error.localizedDescription)") }
        defer { try? handle.close() }
        return try importJSONLines { () throws(JSONLinesError) -> Data? in
            do { return try handle.read(upToCount: 1 << 20) } catch { throw .unreadable(error.localizedDescription) }
        }
    }

    /// The import of ``importJSONLines(from:)``, from chunks of any size
    /// (`nextChunk` returns `nil` or an empty chunk at the end), so that a
    /// line may be cut anywhere: the `jsonl-import` fuzz target feeds whole
    /// inputs cut at arbitrary points.
    /// - Complexity: O(size of the input): each byte is searched for a
    ///   newline once, however many chunks a long line spans.
    func importJSONLines(chunks nextChunk: () throws(JSONLinesError) -> Data?) throws(JSONLinesError) -> Int {
        var pending: [UInt8] = []
        var lineNumber = 0
        var appended = 0
        func consume(_ line: ArraySlice<UInt8>) throws(JSONLinesError) {
            lineNumber += 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
            let commit = try JSONLines.decode(Array(line), lineNumber: lineNumber)
            do { try append(commit) } catch { throw .journal(line: lineNumber, error) }
            appended += 1
        }
        while let chunk = try nextChunk(), !chunk.isEmpty {
            // Bytes already in `pending` hold no newline: search the new ones only.
            var searchFrom = pending.count
            pending.append(contentsOf: chunk)
            var start = pending.startIndex
            while let newline = pending[searchFrom...].firstIndex(of: 0x0A) {
                try consume(pending[start..<newline])
                start = newline + 1
                searchFrom = start
            }
            pending.removeSubrange(..<start)
        }
        if !pending.isEmpty { try consume(pending[...]) }
        return appended
    }
}
