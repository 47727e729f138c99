import Chronicle

/// The scope's list edits after some version, for the lists a rebase's
/// pending commits edit: what the server ordered concurrently with each
/// pending list edit, to transform it over (see ``ListEdit``).
///
/// A pending commit's *base* is the scope version the device's store
/// showed when it was made (with the pending commits before it on top).
/// The scope's edits after that base are concurrent with it; the ones up
/// to it, it saw. Edits whose positions cannot be known (the list set or
/// cleared whole, its object created or deleted, or an edit of this
/// device's own accepted commit that a later pending commit saw in another
/// form) are kept as markers: a pending edit with one among its concurrent
/// edits falls back to its index, clamped.
struct ListHistory {
    /// One list: a property of an object, in the scope's numbering.
    struct List: Hashable {
        var table: Int
        var key: ObjectKey
        var property: Int
        var object: TableKey { TableKey(table: table, key: key) }
    }

    /// One concurrent edit, `nil` when its positions are unknown.
    struct Entry: Equatable {
        var version: UInt64
        var edit: ListEdit?
    }

    /// The commits after this version are all here.
    let start: UInt64
    /// Server versions of this device's own accepted commits.
    private let own: Set<UInt64>
    private var lists: [List: [Entry]] = [:]
    /// The versions at which each object was created or deleted.
    private var renewals: [TableKey: [UInt64]] = [:]

    /// Reads the list edits of `objects` (scope numbering) from the
    /// scope's commits after `start`, which `next` returns in version order.
    ///
    /// - Complexity: O(size of the commits read).
    init(start: UInt64, objects: Set<TableKey>, own: Set<UInt64>, next: () throws -> Commit?) rethrows {
        self.start = start
        self.own = own
        guard !objects.isEmpty else { return }
        while let commit = try next() {
            let mine = own.contains(commit.version)
            for event in commit.events {
                guard let target = event.target, objects.contains(TableKey(table: target.table, key: target.key)) else { continue }
                func add(_ property: Int, _ edit: ListEdit?) {
                    lists[List(table: target.table, key: target.key, property: property), default: []]
                        .append(Entry(version: commit.version, edit: mine ? nil : edit))
                }
                switch event {
                case .listInsert(_, _, let property, let index, _): add(property, .insert(index))
                case .listRemove(_, _, let property, let index): add(property, .remove(index))
                case .listMove(_, _, let property, let from, let to): add(property, .move(from: from, to: to))
                case .listReplace(_, _, let property, let index, _): add(property, .replace(index))
                case .set(_, _, let property, .list): add(property, nil)
                case .clear(_, _, let property): add(property, nil)
                case .create, .delete: renewals[TableKey(table: target.table, key: target.key), default: []].append(commit.version)
                default: break
                }
            }
        }
    }

    /// The version a pending commit made at `base` saw everything up to:
    /// its base, and this device's own commits the server took right
    /// after it (rebased at that base, as the store then showed them).
    /// `nil` when the base is unknown or older than the commits here.
    func effectiveBase(_ base: UInt64?) -> UInt64? {
        guard var version = base, version >= start else { return nil }
        while own.contains(version + 1) { version += 1 }
        return version
    }

    /// The edits of `list` after ``start``, oldest first.
    func entries(_ list: List) -> [Entry] {
        let edits = lists[list] ?? []
        guard let renewed = renewals[list.object] else { return edits }
        return (edits + renewed.map { Entry(version: $0, edit: nil) }).sorted { $0.version < $1.version }
    }
}
