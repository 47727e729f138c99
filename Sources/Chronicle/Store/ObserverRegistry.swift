import Synchronization

/// What an observer wants to be woken for: changes to particular objects,
/// or any change in particular tables.
struct ObserverInterest: Sendable, Equatable {
    var objects: Set<TableKey> = []
    var tables: Set<Int> = []
    /// Wake on any commit that changes the schema: an observer whose type
    /// has no table yet learns its table this way.
    var schemaChanges = false
    /// With `objects` all in one table and no `tables`: the properties
    /// (``ChangeFootprint/bit(_:)``) whose modification matters; deletions
    /// always do. `nil`: any change to the objects matters.
    var properties: UInt64?
}

/// Something the registry wakes after a commit.
protocol StoreObserver: AnyObject, Sendable {
    /// Commits at or below this version happened before the observer existed.
    var baselineVersion: UInt64 { get }
    /// Called on the committing thread, in commit order, for commits that
    /// touched the observer's interest. Returns the interest to keep, or
    /// `nil` to stop observing.
    func commitDidApply(_ changes: ChangeSet, old: StoreState, new: StoreState) -> ObserverInterest?
}

/// Matches each commit's change set against registered observers through
/// an index by object and by table.
///
/// - Complexity: dispatching a commit is O(changed objects + matched
///   observers); observers whose objects and tables the commit did not
///   touch cost nothing.
final class ObserverRegistry: Sendable {
    private struct Entry {
        let observer: any StoreObserver
        var interest: ObserverInterest
    }
    private struct Index {
        var entries: [ObjectIdentifier: Entry] = [:]
        var byObject: [TableKey: Set<ObjectIdentifier>] = [:]
        var byTable: [Int: Set<ObjectIdentifier>] = [:]
        var bySchema: Set<ObjectIdentifier> = []
        var summary = InterestSummary()

        mutating func add(_ id: ObjectIdentifier, _ interest: ObserverInterest) {
            summary.add(interest)
            for object in interest.objects { byObject[object, default: []].insert(id) }
            for table in interest.tables { byTable[table, default: []].insert(id) }
            if interest.schemaChanges { bySchema.insert(id) }
        }

        mutating func remove(_ id: ObjectIdentifier, _ interest: ObserverInterest) {
            summary.remove(interest)
            for object in interest.objects {
                byObject[object]?.remove(id)
                if byObject[object]?.isEmpty == true { byObject[object] = nil }
            }
            for table in interest.tables {
                byTable[table]?.remove(id)
                if byTable[table]?.isEmpty == true { byTable[table] = nil }
            }
            bySchema.remove(id)
        }
    }
    private let index = Locked(Index())

    /// Registers an observer. `make` runs under the registry's lock with
    /// the store's committed state, so that the observer's baseline and its
    /// registration are atomic with respect to dispatch: no commit falls
    /// between them.
    func register<O: StoreObserver>(store: Store, _ make: (StoreState) -> (O, ObserverInterest)) -> O {
        index.withLock { index in
            let (observer, interest) = make(store.committedState())
            let id = ObjectIdentifier(observer)
            index.entries[id] = Entry(observer: observer, interest: interest)
            index.add(id, interest)
            return observer
        }
    }

    func unregister(_ observer: AnyObject) {
        let id = ObjectIdentifier(observer)
        index.withLock { index in
            guard let entry = index.entries.removeValue(forKey: id) else { return }
            index.remove(id, entry.interest)
        }
    }

    /// How many observers are registered (for leak tests).
    var count: Int { index.withLock { $0.entries.count } }

    /// Like ``dispatch(_:old:new:)``, building the change set only if a
    /// registered observer may care about a commit with `footprint`. With none,
    /// building it (a set of every inserted key) was work per object a write
    /// inserted, for no one; with many observers of one property, a commit that
    /// set only another property built its change set and matched the object's
    /// observers for nothing. An observer registering meanwhile is matched as
    /// it would be by ``dispatch(_:old:new:)``: it registers against the
    /// published state, so this commit is not new to it.
    ///
    /// - Complexity: O(tables the commit modified) when no observer cares;
    ///   otherwise `build`'s cost plus the dispatch's.
    func dispatch(building build: () -> ChangeSet, footprint: ChangeFootprint, old: StoreState, new: StoreState) {
        guard index.withLock({ !$0.entries.isEmpty && $0.summary.concerns(footprint) }) else { return }
        dispatch(build(), old: old, new: new)
    }

    /// Traps if the summary of interests disagrees with the registered interests.
    func _checkInvariants() {
        index.withLock { index in
            index.summary._checkInvariants()
            var rebuilt = InterestSummary()
            for entry in index.entries.values { rebuilt.add(entry.interest) }
            let probes = [ChangeFootprint()] + (0..<index.summary.tableCount).flatMap { table in
                (0..<64).map { property in
                    var footprint = ChangeFootprint()
                    footprint.modified(table: table, property: property)
                    return footprint
                }
            }
            for probe in probes {
                precondition(rebuilt.concerns(probe) == index.summary.concerns(probe), "ObserverRegistry: summary out of step")
            }
        }
    }

    /// Wakes the observers a commit touched. Called by the writer, in commit order.
    func dispatch(_ changes: ChangeSet, old: StoreState, new: StoreState) {
        let matched: [any StoreObserver] = index.withLock { index in
            guard !index.entries.isEmpty else { return [] }
            // Arrays, not sets: a commit touches few objects and tables, and
            // two sets per commit (allocated, hashed into, freed) were most of
            // the matching's cost. An observer found twice is deduplicated
            // below.
            var ids: [ObjectIdentifier] = []
            for modification in changes.modifications {
                if let found = index.byObject[TableKey(table: modification.table, key: modification.key)] {
                    ids.append(contentsOf: found)
                }
            }
            for deletion in changes.deletions {
                if let found = index.byObject[deletion] { ids.append(contentsOf: found) }
            }
            // The tables the commit touched, only when some observer
            // watches a whole table: most commits' observers are object
            // streams, and the list was an allocation per commit.
            if !index.byTable.isEmpty {
                var tables: [Int] = []
                func touch(_ table: Int) { if !tables.contains(table) { tables.append(table) } }
                for modification in changes.modifications { touch(modification.table) }
                for deletion in changes.deletions { touch(deletion.table) }
                for insertion in changes.insertions { touch(insertion.table) }
                for table in tables {
                    if let found = index.byTable[table] { ids.append(contentsOf: found) }
                }
            }
            if changes.schemaChanged { ids.append(contentsOf: index.bySchema) }
            if ids.count > 1 {
                var seen = Set<ObjectIdentifier>(minimumCapacity: ids.count)
                ids.removeAll { !seen.insert($0).inserted }
            }
            return ids.compactMap { index.entries[$0]?.observer }
        }
        for observer in matched where changes.version > observer.baselineVersion {
            let interest = observer.commitDidApply(changes, old: old, new: new)
            let id = ObjectIdentifier(observer)
            index.withLock { index in
                guard let entry = index.entries[id] else { return }
                guard let interest else {
                    index.entries[id] = nil
                    index.remove(id, entry.interest)
                    return
                }
                if interest != entry.interest {
                    index.remove(id, entry.interest)
                    index.entries[id]?.interest = interest
                    index.add(id, interest)
                }
            }
        }
    }
}
