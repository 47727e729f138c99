import Chronicle

extension Store {
    /// The events of the store's last commit, one readable line each
    /// (see ``Chronicle/Journal/eventDescriptions(from:through:)``); empty
    /// for an empty store.
    ///
    /// ```swift
    /// try store.write { person.firstName = "Bob" }
    /// let events = try store.lastCommitEvents()
    /// #expect(events == [#"set Person#1.firstName: "Ann" → "Bob""#])
    /// ```
    ///
    /// Read the events into a constant first: Swift Testing does not show
    /// the values of an expression with `try` in it when `#expect` fails.
    ///
    /// - Throws: ``StoreError`` when the journal cannot be read.
    /// - Complexity: a fold to the version before the last (from the nearest checkpoint).
    public func lastCommitEvents() throws -> [String] {
        let last = journalForReading.lastVersion
        return last == 0 ? [] : try eventDescriptions(from: last, through: last)
    }

    /// The events of commits `from...through`, one readable line each (see
    /// ``Chronicle/Journal/eventDescriptions(from:through:)``).
    ///
    /// - Parameters:
    ///   - from: The first version described.
    ///   - through: The last version described (the store's last by default).
    /// - Throws: ``StoreError`` when the journal cannot be read or a version is out of range.
    /// - Complexity: a fold to `from - 1` (from the nearest checkpoint), then
    ///   O(size of the commits described).
    public func eventDescriptions(from: UInt64, through: UInt64? = nil) throws -> [String] {
        let last = min(through ?? journalForReading.lastVersion, journalForReading.lastVersion)
        guard from <= last else { return [] }
        var describer = EventDescriber(state: try frozen(at: max(from, 1) - 1).state)
        var lines: [String] = []
        var reader = journalForReading.reader(from: max(from, 1))
        while reader.nextVersion <= last, let commit = try reader.next() {
            lines += describer.describe(commit).lines
        }
        return lines
    }
}
