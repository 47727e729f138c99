import Chronicle

/// What a run of commits changed, end to end: objects created, deleted and
/// modified (property by property, first old value → last new value).
struct NetChanges {
    /// One change of one object, by table and key.
    enum Item: Equatable {
        case created(TableKey)
        case deleted(TableKey)
        case set(TableKey, property: Int, old: PersistedValue, new: PersistedValue)

        var target: TableKey {
            switch self {
            case .created(let target), .deleted(let target), .set(let target, _, _, _): target
            }
        }
    }

    let before: StoreState
    let after: StoreState
    /// The versions folded.
    let versions: ClosedRange<UInt64>?
    /// Every event of those commits, one line each.
    let events: [String]
    /// The net changes, by table and key, then property.
    let items: [Item]

    /// Folds `journal`'s commits after `before` through `last`.
    init(from before: StoreState, journal: Journal, through last: UInt64) throws {
        var describer = EventDescriber(state: before)
        var lines: [String] = []
        var touched = Set<TableKey>()
        var reader = journal.reader(from: before.version + 1)
        while reader.nextVersion <= last, let commit = try reader.next() {
            let (described, changes) = describer.describe(commit)
            lines += described
            touched.formUnion(changes.insertions)
            touched.formUnion(changes.deletions)
            touched.formUnion(changes.modifications.map { TableKey(table: $0.table, key: $0.key) })
        }
        let after = describer.state
        var items: [Item] = []
        for target in touched.sorted() {
            let old = before.object(table: target.table, key: target.key)
            let new = after.object(table: target.table, key: target.key)
            switch (old, new) {
            case (nil, nil): continue   // created and deleted in between
            case (nil, _?): items.append(.created(target))
            case (_?, nil): items.append(.deleted(target))
            case let (old?, new?):
                for property in 0..<new.count {
                    let oldValue = property < old.count ? old[property] : .null
                    if oldValue != new[property] {
                        items.append(.set(target, property: property, old: oldValue, new: new[property]))
                    }
                }
            }
        }
        self.before = before
        self.after = after
        self.versions = before.version < last ? (before.version + 1)...last : nil
        self.events = lines
        self.items = items
    }

    /// Whether `target`'s type is embedded (its creation and deletion go
    /// with its parent's).
    func isEmbedded(_ target: TableKey) -> Bool {
        after.schema.indices.contains(target.table) && after.schema[target.table].isEmbedded
    }

    /// An item as a line: `Person#1.firstName: "Ann" → "Bob"`, `created Person#2`.
    func describe(_ item: Item) -> String {
        let names = SchemaNames(schema: after.schema)
        switch item {
        case .created(let target): return "created \(names.object(target.table, target.key))"
        case .deleted(let target): return "deleted \(names.object(target.table, target.key))"
        case let .set(target, property, old, new):
            let schema = names.property(target.table, property)
            return "\(names.path(target.table, target.key, property)): \(names.value(old, of: schema)) → \(names.value(new, of: schema))"
        }
    }
}
