import Chronicle
import Foundation

/// One rebase: the device's commits the server has not accepted yet,
/// re-applied over the scope's state as the server last ordered it, and the
/// events that make the local store equal to the result.
///
/// The scope's state and the local state name objects and properties their
/// own way: tables and properties by index in each journal's schema (mapped
/// by name), objects by key (mapped by ``KeyPairs``, the same number unless
/// paired).
///
/// The rules a pending event follows, in the scope (it is ordered after
/// every commit the server already has):
/// - a `set` wins (later write in server order); on a deleted object it is dropped (delete wins);
/// - a `create` whose primary key the scope already has becomes `set`s of
///   the object that has it (creates merge, property by property);
/// - a `create` at a key the scope has used (even for an object deleted
///   since) takes a fresh key in the scope;
/// - list edits are transformed over the scope's edits of the list that
///   the pending commit did not see (``ListHistory``, ``ListEdit``): every
///   insert is kept, at the place its neighbours moved to; edits of
///   elements removed in the scope are dropped; where those positions are
///   unknown, an edit applies at its index, clamped to the list as it is now;
/// - set and map edits apply per element; links to deleted objects drop.
///
/// - Complexity: O(size of the pending commits + objects touched), plus
///   O(objects) when `full`.
struct Rebase {
    /// The scope's state, then with the pending commits applied.
    private(set) var working: StoreState
    /// The local state, then with ``localEvents`` applied.
    private(set) var scratch: StoreState
    private(set) var pairs: KeyPairs
    /// The pending commits as the scope gets them (empty ones left out).
    private(set) var pushes: [(id: UUID, events: [Event], source: Commit)] = []
    /// The pending commits that came to nothing in the scope.
    private(set) var emptied: [UUID] = []
    /// The events that make the local state the scope's plus the pending commits.
    private(set) var localEvents: [Event] = []

    private let local: StoreState
    private var touchedScope: Set<TableKey>
    /// The scope's list edits since the oldest pending commit's base.
    private let history: ListHistory?
    /// Per list a pending commit edited: the scope's edits it has not seen,
    /// transformed over the pending edits so far.
    private var concurrentEdits: [ListHistory.List: [ListHistory.Entry]] = [:]
    /// Objects the pending commits created or deleted in the scope: their lists start over.
    private var renewed: Set<TableKey> = []
    /// The effective base of the pending commit being translated (``ListHistory/effectiveBase(_:)``).
    private var base: UInt64?
    private var touchedLocal: Set<TableKey> = []
    private var freshKeys: [String: Int64] = [:]

    init(scope: StoreState, local: StoreState, pairs: KeyPairs, touchedScope: Set<TableKey>, history: ListHistory? = nil) {
        working = scope
        scratch = local
        self.local = local
        self.pairs = pairs
        self.touchedScope = touchedScope
        self.history = history
    }

    /// Runs the rebase of `pending` (local commits, oldest first, each with
    /// its base: see ``ListHistory``); with `full`, compares every object
    /// instead of the touched ones.
    mutating func run(pending: [(id: UUID, commit: Commit, base: UInt64?)], full: Bool) throws(SyncError) {
        noteLocalTargets(pending.map(\.commit))
        // Pairs of objects the pending commits create are worked out anew.
        for (_, commit, _) in pending {
            for case .create(let table, let key, _) in commit.events where local.schema.indices.contains(table) {
                pairs.unpair(type: local.schema[table].name, local: key.rawValue)
            }
        }
        for (id, commit, base) in pending {
            self.base = history?.effectiveBase(base)
            var events: [Event] = []
            for event in commit.events { try translate(event, into: &events) }
            if events.isEmpty { emptied.append(id) } else { pushes.append((id, events, commit)) }
        }
        try extendLocalSchema()
        if full {
            for table in working.schema.indices {
                for (key, _) in working.objects(table: table) { touchedScope.insert(TableKey(table: table, key: key)) }
            }
            for table in local.schema.indices {
                for (key, _) in local.objects(table: table) { touchedLocal.insert(TableKey(table: table, key: key)) }
            }
        }
        diff()
    }

    // MARK: Local to scope

    private func localName(_ table: Int) -> String? {
        local.schema.indices.contains(table) ? local.schema[table].name : nil
    }

    @discardableResult
    private mutating func emitScope(_ event: Event, into events: inout [Event]) -> Bool {
        var changes = ChangeSetBuilder()
        do {
            try working.apply(event, changes: &changes)
        } catch {
            return false  // Cannot apply over the scope's state as it is now: dropped.
        }
        events.append(event)
        if let target = event.target { touchedScope.insert(TableKey(table: target.table, key: target.key)) }
        let built = changes.build(version: 0)
        for key in built.insertions { touchedScope.insert(key) }
        for key in built.deletions { touchedScope.insert(key) }
        for modification in built.modifications { touchedScope.insert(TableKey(table: modification.table, key: modification.key)) }
        return true
    }

    private static func check(_ mine: PropertySchema, _ theirs: PropertySchema, type: String) throws(SyncError) {
        guard mine.type == theirs.type, mine.collection == theirs.collection, mine.objectType == theirs.objectType,
              mine.isOptional == theirs.isOptional, mine.isPrimaryKey == theirs.isPrimaryKey else {
            throw .schemaMismatch("\(type).\(mine.name) is declared differently in the scope")
        }
    }

    /// A fresh key for `type`: used in neither state, nor by any pair, nor handed out already.
    private mutating func freshKey(_ type: String) -> Int64 {
        var key = pairs.largestKey(type) + 1
        if let table = working.tableIndex(named: type) { key = max(key, working.nextKey(table: table).rawValue) }
        if let table = scratch.tableIndex(named: type) { key = max(key, scratch.nextKey(table: table).rawValue) }
        key = max(key, freshKeys[type] ?? 0)
        freshKeys[type] = key + 1
        return key
    }

    /// The scope key of an existing local object.
    private func scopeKey(_ type: String, local key: ObjectKey) -> ObjectKey {
        ObjectKey(pairs.scopeKey(type, local: key.rawValue))
    }

    private func scopeValue(_ value: PersistedValue, _ property: PropertySchema) -> PersistedValue {
        guard property.type == .object, let type = property.objectType else { return value }
        guard let table = working.tableIndex(named: type) else { return property.defaultValue }
        func map(_ value: PersistedValue) -> PersistedValue? {
            guard case .link(let key) = value else { return value }
            let mapped = scopeKey(type, local: key)
            return working.contains(table: table, key: mapped) ? .link(mapped) : nil
        }
        switch value {
        case .link: return map(value) ?? .null
        case .list(let elements): return .list(elements.compactMap(map))
        case .set(let elements): return .set(elements.compactMap(map))
        case .map(let entries): return .map(entries.compactMap { entry in map(entry.value).map { MapEntry(key: entry.key, value: $0) } })
        default: return value
        }
    }

    private mutating func translate(_ event: Event, into events: inout [Event]) throws(SyncError) {
        switch event {
        case .defineType(let type):
            if let table = working.tableIndex(named: type.name) {
                for property in type.properties {
                    if let existing = working.schema[table].propertyIndex(named: property.name) {
                        try Self.check(property, working.schema[table].properties[existing], type: type.name)
                    } else {
                        emitScope(.addProperty(table: table, property), into: &events)
                    }
                }
            } else {
                emitScope(event, into: &events)
            }
            return
        case .addProperty(let localTable, let property):
            guard let name = localName(localTable), let table = working.tableIndex(named: name) else { return }
            if let existing = working.schema[table].propertyIndex(named: property.name) {
                try Self.check(property, working.schema[table].properties[existing], type: name)
            } else {
                emitScope(.addProperty(table: table, property), into: &events)
            }
            return
        case .changeSchema(let change):
            // Only additive schema changes sync; a migration rewrites what
            // the other devices' commits mean.
            throw .schemaMismatch("a migration (\(change)) cannot be synced: only added types and properties sync")
        default:
            break
        }
        guard let target = event.target, let type = localName(target.table),
              let table = working.tableIndex(named: type) else { return }
        let localType = local.schema[target.table]
        let scopeType = working.schema[table]
        func property(_ index: Int) -> (scope: Int, schema: PropertySchema)? {
            guard localType.properties.indices.contains(index),
                  let mapped = scopeType.propertyIndex(named: localType.properties[index].name) else { return nil }
            return (mapped, localType.properties[index])
        }
        if case .create(_, let localKey, let values) = event {
            var byName: [String: PersistedValue] = [:]
            for (index, value) in values.enumerated() where localType.properties.indices.contains(index) {
                byName[localType.properties[index].name] = scopeValue(value, localType.properties[index])
            }
            if let pk = scopeType.primaryKeyIndex, let value = byName[scopeType.properties[pk].name],
               let existing = working.key(table: table, primaryKey: value) {
                // Two creates of one primary key: one object, this create's values set over it.
                pairs.pair(type: type, scope: existing.rawValue, local: localKey.rawValue)
                for (index, schema) in scopeType.properties.enumerated() where index != pk {
                    if let value = byName[schema.name] {
                        emitScope(.set(table: table, key: existing, property: index, value: value), into: &events)
                    }
                }
                return
            }
            // A key the scope has used, even if that object is deleted now,
            // is not this create's: other devices may still hold a copy of
            // the deleted object under it, and would take the new object for
            // it (its owner's links to it then fail to apply there).
            var key = localKey
            if key.rawValue < working.nextKey(table: table).rawValue || pairs.pairedLocal(type, scope: key.rawValue) != nil {
                key = ObjectKey(freshKey(type))
            }
            if key != localKey { pairs.pair(type: type, scope: key.rawValue, local: localKey.rawValue) }
            let ordered = scopeType.properties.map { byName[$0.name] ?? $0.defaultValue }
            if emitScope(.create(table: table, key: key, values: ordered), into: &events) { renew(TableKey(table: table, key: key)) }
            return
        }
        let key = scopeKey(type, local: target.key)
        guard working.contains(table: table, key: key) else { return }  // Deleted in the scope: the delete wins.
        switch event {
        case .delete:
            if emitScope(.delete(table: table, key: key), into: &events) { renew(TableKey(table: table, key: key)) }
        case .set(_, _, let index, let value):
            guard let (mapped, schema) = property(index), !schema.isPrimaryKey else { return }
            if emitScope(.set(table: table, key: key, property: mapped, value: scopeValue(value, schema)), into: &events), case .list = value {
                // The list is this commit's whole: later pending edits of it have nothing to transform over.
                concurrentEdits[ListHistory.List(table: table, key: key, property: mapped)] = []
            }
        case .listInsert(_, _, let index, let position, let value):
            guard let (mapped, schema) = property(index) else { return }
            let element = scopeValue(value, schema)
            if case .null = element, schema.type == .object, !isNull(value) { return }
            let list = ListHistory.List(table: table, key: key, property: mapped)
            emitList(.insert(position), in: list, into: &events) { count in
                .insert(min(position, count))
            } event: { edit in
                guard case .insert(let at) = edit else { return nil }
                return .listInsert(table: table, key: key, property: mapped, index: at, value: element)
            }
        case .listRemove(_, _, let index, let position):
            guard let (mapped, _) = property(index) else { return }
            emitList(.remove(position), in: ListHistory.List(table: table, key: key, property: mapped), into: &events) { count in
                position < count ? .remove(position) : nil
            } event: { edit in
                guard case .remove(let at) = edit else { return nil }
                return .listRemove(table: table, key: key, property: mapped, index: at)
            }
        case .listMove(_, _, let index, let from, let to):
            guard let (mapped, _) = property(index) else { return }
            emitList(.move(from: from, to: to), in: ListHistory.List(table: table, key: key, property: mapped), into: &events) { count in
                from < count && to < count ? .move(from: from, to: to) : nil
            } event: { edit in
                guard case .move(let from, let to) = edit else { return nil }
                return .listMove(table: table, key: key, property: mapped, from: from, to: to)
            }
        case .listReplace(_, _, let index, let position, let value):
            guard let (mapped, schema) = property(index) else { return }
            let element = scopeValue(value, schema)
            emitList(.replace(position), in: ListHistory.List(table: table, key: key, property: mapped), into: &events) { count in
                position < count ? .replace(position) : nil
            } event: { edit in
                guard case .replace(let at) = edit else { return nil }
                return .listReplace(table: table, key: key, property: mapped, index: at, value: element)
            }
        case .setInsert(_, _, let index, let value):
            guard let (mapped, schema) = property(index) else { return }
            let element = scopeValue(value, schema)
            if case .null = element, schema.type == .object { return }
            emitScope(.setInsert(table: table, key: key, property: mapped, value: element), into: &events)
        case .setRemove(_, _, let index, let value):
            guard let (mapped, schema) = property(index) else { return }
            emitScope(.setRemove(table: table, key: key, property: mapped, value: scopeValue(value, schema)), into: &events)
        case .mapSet(_, _, let index, let mapKey, let value):
            guard let (mapped, schema) = property(index) else { return }
            emitScope(.mapSet(table: table, key: key, property: mapped, mapKey: mapKey, value: scopeValue(value, schema)), into: &events)
        case .mapRemove(_, _, let index, let mapKey):
            guard let (mapped, _) = property(index) else { return }
            guard case .map(let entries)? = working.object(table: table, key: key)?[mapped],
                  entries.contains(where: { $0.key == mapKey }) else { return }
            emitScope(.mapRemove(table: table, key: key, property: mapped, mapKey: mapKey), into: &events)
        case .clear(_, _, let index):
            guard let (mapped, _) = property(index) else { return }
            if emitScope(.clear(table: table, key: key, property: mapped), into: &events) {
                concurrentEdits[ListHistory.List(table: table, key: key, property: mapped)] = []
            }
        case .defineType, .addProperty, .changeSchema, .create:
            break
        }
    }

    /// An object this rebase created or deleted in the scope: its lists
    /// are what the pending commits make them, with nothing concurrent.
    private mutating func renew(_ object: TableKey) {
        renewed.insert(object)
        for list in concurrentEdits.keys where list.object == object { concurrentEdits[list] = [] }
    }

    /// Emits a pending list edit at the place it takes in the scope:
    /// transformed over the scope's edits of `list` the pending commit did
    /// not see; where those are unknown, at `clamped(count of the list now)`.
    /// An edit that comes to nothing (its element is gone) is dropped.
    private mutating func emitList(_ edit: ListEdit, in list: ListHistory.List, into events: inout [Event],
                                   clamped: (Int) -> ListEdit?, event: (ListEdit) -> Event?) {
        guard let concurrent = concurrentEdits(list) else {
            if let placed = clamped(listCount(list.table, list.key, list.property)), let built = event(placed) {
                emitScope(built, into: &events)
            }
            return
        }
        // Transform the pending edit over each concurrent one, and each
        // concurrent one over it, so that later pending edits of the list
        // meet them as they apply after this one.
        var current: ListEdit? = edit
        var after: [ListHistory.Entry] = []
        for entry in concurrent {
            guard let mine = current, let theirs = entry.edit else {
                after.append(entry)
                continue
            }
            current = mine.transformed(over: theirs, isFirst: false)
            if let moved = theirs.transformed(over: mine, isFirst: true) { after.append(.init(version: entry.version, edit: moved)) }
        }
        // An insert past the end (positions that disagree with the scope's,
        // which a commit whose base was lost can have) goes at the end: an
        // insert is never lost. Whatever was emitted, later pending edits
        // of the list meet the concurrent ones as they apply after this one.
        if case .insert(let at)? = current { current = .insert(min(at, listCount(list.table, list.key, list.property))) }
        if let current, let built = event(current) { emitScope(built, into: &events) }
        concurrentEdits[list] = after
    }

    /// The scope's edits of `list` that the pending commit being translated
    /// did not see, as they apply after the pending edits before it;
    /// `nil` when their positions are unknown.
    private mutating func concurrentEdits(_ list: ListHistory.List) -> [ListHistory.Entry]? {
        guard let history else { return nil }
        var entries = concurrentEdits[list] ?? (renewed.contains(list.object) ? [] : history.entries(list))
        if let base {
            // Seen already: the scope's edits up to the base.
            entries.removeFirst(entries.prefix { $0.version <= base }.count)
        }
        concurrentEdits[list] = entries
        guard base != nil || entries.isEmpty, !entries.contains(where: { $0.edit == nil }) else { return nil }
        return entries
    }

    private func isNull(_ value: PersistedValue) -> Bool {
        if case .null = value { return true }
        return false
    }

    private func listCount(_ table: Int, _ key: ObjectKey, _ property: Int) -> Int {
        guard case .list(let elements)? = working.object(table: table, key: key)?[property] else { return 0 }
        return elements.count
    }

    // MARK: Scope to local

    private mutating func emitLocal(_ event: Event) {
        var changes = ChangeSetBuilder()
        do { try scratch.apply(event, changes: &changes) } catch { return }
        localEvents.append(event)
    }

    /// Defines in the local journal the types and properties the scope has and it lacks.
    private mutating func extendLocalSchema() throws(SyncError) {
        for type in working.schema {
            if let table = scratch.tableIndex(named: type.name) {
                for property in type.properties {
                    if let existing = scratch.schema[table].propertyIndex(named: property.name) {
                        try Self.check(scratch.schema[table].properties[existing], property, type: type.name)
                    } else {
                        emitLocal(.addProperty(table: table, property))
                    }
                }
            } else {
                emitLocal(.defineType(type))
            }
        }
    }

    /// The local key of a scope object; pairs it with a fresh local key
    /// when its number is already another object's here.
    private mutating func localKey(_ type: String, scope key: ObjectKey) -> ObjectKey {
        if let paired = pairs.pairedLocal(type, scope: key.rawValue) { return ObjectKey(paired) }
        if pairs.pairedScope(type, local: key.rawValue) != nil {
            let fresh = freshKey(type)
            pairs.pair(type: type, scope: key.rawValue, local: fresh)
            return ObjectKey(fresh)
        }
        return key
    }

    /// The scope object a local object is, if any.
    private func scopeObject(_ type: String, local key: ObjectKey) -> ObjectKey? {
        if let paired = pairs.pairedScope(type, local: key.rawValue) { return ObjectKey(paired) }
        if let other = pairs.pairedLocal(type, scope: key.rawValue), other != key.rawValue { return nil }
        return key
    }

    private mutating func localValue(_ value: PersistedValue, _ property: PropertySchema) -> PersistedValue {
        guard property.type == .object, let type = property.objectType else { return value }
        func map(_ value: PersistedValue) -> PersistedValue {
            guard case .link(let key) = value else { return value }
            return .link(localKey(type, scope: key))
        }
        switch value {
        case .link: return map(value)
        case .list(let elements): return .list(elements.map(map))
        case .set(let elements): return .set(elements.map(map))
        case .map(let entries): return .map(entries.map { MapEntry(key: $0.key, value: map($0.value)) })
        default: return value
        }
    }

    /// Makes every touched object of the local state what the scope (with
    /// the pending commits) says: deletes first, then creates (links left
    /// empty), then each differing property.
    private mutating func diff() {
        // Every touched object, named the local way.
        var objects = Set<TableKey>()
        for touched in touchedScope where working.schema.indices.contains(touched.table) {
            let type = working.schema[touched.table].name
            guard let table = scratch.tableIndex(named: type) else { continue }
            objects.insert(TableKey(table: table, key: localKey(type, scope: touched.key)))
        }
        objects.formUnion(touchedLocal)
        for event in pendingTargets where scratch.schema.indices.contains(event.table) { objects.insert(event) }
        let ordered = objects.sorted()

        // The target record of each, in local property order, links mapped.
        var targets: [TableKey: [PersistedValue]] = [:]
        for object in ordered {
            let type = scratch.schema[object.table]
            guard let table = working.tableIndex(named: type.name),
                  let key = scopeObject(type.name, local: object.key),
                  let record = working.object(table: table, key: key) else { continue }
            let scopeType = working.schema[table]
            targets[object] = type.properties.map { property in
                guard let index = scopeType.propertyIndex(named: property.name) else { return property.defaultValue }
                return localValue(record[index], property)
            }
        }
        // Deletes first: an object deleted and created again under its primary key
        // is two objects, and the new one can only be created once the old one is gone.
        for object in ordered where targets[object] == nil && scratch.object(table: object.table, key: object.key) != nil {
            emitLocal(.delete(table: object.table, key: object.key))
        }
        for object in ordered where scratch.object(table: object.table, key: object.key) == nil {
            guard let values = targets[object] else { continue }
            let type = scratch.schema[object.table]
            let unlinked = zip(values, type.properties).map { value, property in
                property.type == .object ? property.defaultValue : value
            }
            emitLocal(.create(table: object.table, key: object.key, values: unlinked))
        }
        for object in ordered {
            guard let values = targets[object], let record = scratch.object(table: object.table, key: object.key) else { continue }
            let type = scratch.schema[object.table]
            for (index, value) in values.enumerated() where record[index] != value && !type.properties[index].isPrimaryKey {
                emitLocal(.set(table: object.table, key: object.key, property: index, value: value))
            }
        }
    }

    /// The local objects the pending commits name.
    private var pendingTargets: [TableKey] = []

    /// Records the local objects `commits` name, so the diff looks at them
    /// even when their events came to nothing in the scope.
    private mutating func noteLocalTargets(_ commits: [Commit]) {
        for commit in commits {
            for event in commit.events {
                if let target = event.target { pendingTargets.append(TableKey(table: target.table, key: target.key)) }
            }
        }
    }
}
