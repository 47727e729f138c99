import Chronicle

extension Journal {
    /// The events of commits `from...through`, one readable line each, with
    /// the type and property names the journal's schema gives them.
    ///
    /// ```swift
    /// try store.journalForReading.eventDescriptions(from: 2)
    /// // ["create Person#1 {firstName: \"Ann\", lastName: \"\", address: nil, friends: []}",
    /// //  "set Person#1.firstName: \"Ann\" → \"Bob\""]
    /// ```
    ///
    /// Each line names its object `Type#key`. A `set` (and a list `replace`,
    /// a map `set`) shows the value it replaced and the new one (`∅` when
    /// there was none); a list `remove` shows the removed element; links
    /// render as `Type#key`. The old values come from folding the journal up
    /// to each event, so they are exact.
    ///
    /// - Parameters:
    ///   - from: The first version described.
    ///   - through: The last version described (the journal's last by default).
    /// - Throws: ``JournalError`` when a commit cannot be read.
    /// - Complexity: O(size of the journal through `through`): the commits
    ///   before `from` are folded to know the old values.
    public func eventDescriptions(from: UInt64 = 1, through: UInt64? = nil) throws -> [String] {
        let last = min(through ?? lastVersion, lastVersion)
        var describer = EventDescriber(state: StoreState())
        var lines: [String] = []
        var reader = reader(from: 1)
        while reader.nextVersion <= last, let commit = try reader.next() {
            if commit.version >= from {
                lines += describer.describe(commit).lines
            } else {
                describer.describe(commit)
            }
        }
        return lines
    }
}
