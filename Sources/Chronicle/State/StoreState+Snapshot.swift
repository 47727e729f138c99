import Foundation

/// Snapshot commits: one commit that rebuilds a whole state from the empty
/// state, the first commit of a compacted journal (`Store.compact`).
extension StoreState {
    /// The label of a snapshot commit.
    public static let compactionLabel = "compaction"
    /// The metadata key that marks a snapshot commit.
    public static let snapshotMetadataKey = "chronicle.snapshot"
    /// The metadata key of a snapshot's next keys: `"table:nextKey,…"`, one
    /// entry per table. Keys are never reused, so a snapshot carries each
    /// table's next key even when the object that used the largest key was
    /// deleted before the snapshot.
    public static let nextKeysMetadataKey = "chronicle.nextKeys"

    /// Whether `commit` is a snapshot commit.
    public static func isSnapshot(_ commit: Commit) -> Bool {
        commit.metadata[snapshotMetadataKey] != nil
    }

    /// One commit, with this state's version, that folded into the empty
    /// state gives a state equal to this one (``isContentEqual(_:)``): every
    /// type defined in table order, every object created, then the links
    /// set (so that cycles and links to objects created later are fine),
    /// plus each table's next key in the metadata.
    ///
    /// - Complexity: O(n) in the number of objects.
    public func snapshotCommit(timestamp: Date) -> Commit {
        var events: [Event] = schema.map { .defineType($0) }
        if schemaVersion != 0 { events.append(.changeSchema(.setSchemaVersion(schemaVersion))) }
        var links: [Event] = []
        for (table, type) in schema.enumerated() {
            let linkProperties = type.properties.indices.filter { type.properties[$0].type == .object }
            for (key, record) in objects(table: table) {
                var values = Array(record.values)
                for property in linkProperties where !values[property].linkedKeys.isEmpty {
                    links.append(.set(table: table, key: key, property: property, value: values[property]))
                    values[property] = type.properties[property].defaultValue
                }
                events.append(.create(table: table, key: key, values: values))
            }
        }
        let nextKeys = tables.indices.map { "\($0):\(tables[$0].nextKey)" }.joined(separator: ",")
        return Commit(version: version, timestamp: timestamp, label: Self.compactionLabel,
                      metadata: [Self.snapshotMetadataKey: "1", Self.nextKeysMetadataKey: nextKeys],
                      events: events + links)
    }

    /// Restores the next keys a snapshot commit carries.
    mutating func restoreNextKeys(from commit: Commit) {
        guard let text = commit.metadata[Self.nextKeysMetadataKey] else { return }
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: ":")
            guard parts.count == 2, let table = Int(parts[0]), let next = Int64(parts[1]),
                  tables.indices.contains(table) else { continue }
            tables[table].nextKey = max(tables[table].nextKey, next)
        }
    }
}
