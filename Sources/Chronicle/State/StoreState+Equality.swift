extension StoreState {
    /// Whether two states hold the same schema (and schema version), the same objects with the
    /// same values, and the same next keys — whatever their versions and
    /// however they were reached. Indexes are derived, so not compared.
    ///
    /// - Complexity: O(1) per table whose storage both share; O(n) otherwise.
    public func isContentEqual(_ other: StoreState) -> Bool {
        guard schema == other.schema, schemaVersion == other.schemaVersion else { return false }
        for (mine, theirs) in zip(tables, other.tables) {
            guard mine.nextKey == theirs.nextKey, mine.objects.count == theirs.objects.count else { return false }
            if mine.objects.root === theirs.objects.root { continue }
            guard mine.objects.elementsEqual(theirs.objects, by: { $0.key == $1.key && $0.value == $1.value }) else {
                return false
            }
        }
        return true
    }
}
