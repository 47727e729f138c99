// THROWAWAY STUB — replaced by the state branch at merge.
public struct ObjectRecord: Sendable, Hashable { public var values: ContiguousArray<PersistedValue> }
public struct Backlink: Hashable, Sendable { var table: Int; var key: ObjectKey; var property: Int }
public struct FoldError: Error, Sendable { let reason: String }
public struct PropertyDelta: Sendable { public var property: Int; public var oldValue: PersistedValue; public var newValue: PersistedValue }
public struct ObjectModification: Sendable { public var table: Int; public var key: ObjectKey; public var properties: [PropertyDelta] }
public struct TableKey: Hashable, Sendable { public var table: Int; public var key: ObjectKey }
public struct ChangeSet: Sendable {
    public var version: UInt64
    public var insertions: [TableKey] = []
    public var deletions: [TableKey] = []
    public var deletedRecords: [TableKey: ObjectRecord] = [:]
    public var modifications: [ObjectModification] = []
    public var schemaChanged = false
    public func modification(table: Int, key: ObjectKey) -> ObjectModification? { modifications.first { $0.table == table && $0.key == key } }
    public func isInserted(table: Int, key: ObjectKey) -> Bool { insertions.contains(TableKey(table: table, key: key)) }
    public func isDeleted(table: Int, key: ObjectKey) -> Bool { deletedRecords[TableKey(table: table, key: key)] != nil }
}
extension ObjectModification { public func delta(for p: Int) -> PropertyDelta? { properties.first { $0.property == p } }; public func changed(_ p: Int) -> Bool { delta(for: p) != nil } }
struct ChangeSetBuilder {
    var set = ChangeSet(version: 0)
    func build(version: UInt64) -> ChangeSet { var s = set; s.version = version; return s }
}
public struct StoreState: Sendable {
    public internal(set) var version: UInt64 = 0
    public internal(set) var schema: [TypeSchema] = []
    var tables: [[ObjectKey: ObjectRecord]] = []
    var next: [Int64] = []
    init() {}
    func tableIndex(named name: String) -> Int? { schema.firstIndex { $0.name == name } }
    func object(table: Int, key: ObjectKey) -> ObjectRecord? { tables[table][key] }
    func contains(table: Int, key: ObjectKey) -> Bool { tables[table][key] != nil }
    func count(table: Int) -> Int { tables[table].count }
    func objects(table: Int, from: ObjectKey = ObjectKey(0)) -> [(key: ObjectKey, record: ObjectRecord)] { tables[table].sorted { $0.key < $1.key }.filter { $0.key >= from }.map { ($0.key, $0.value) } }
    func keys(table: Int, property: Int, equalTo value: PersistedValue) -> [ObjectKey]? { nil }
    func key(table: Int, primaryKey: PersistedValue) -> ObjectKey? {
        guard let pk = schema[table].primaryKeyIndex else { return nil }
        return tables[table].first { $0.value.values[pk] == primaryKey }?.key
    }
    func backlinks(table: Int, key: ObjectKey) -> [Backlink] { [] }
    func nextKey(table: Int) -> ObjectKey { ObjectKey(next[table]) }
    mutating func apply(_ event: Event, changes: inout ChangeSetBuilder) throws(FoldError) {
        switch event {
        case .defineType(let s): schema.append(s); tables.append([:]); next.append(1)
        case .addProperty(let t, let p): schema[t].properties.append(p)
        case .create(let t, let k, let v):
            if let pk = schema[t].primaryKeyIndex, key(table: t, primaryKey: v[pk]) != nil { throw FoldError(reason: "duplicate primary key") }
            tables[t][k] = ObjectRecord(values: ContiguousArray(v)); next[t] = max(next[t], k.rawValue + 1)
            changes.set.insertions.append(TableKey(table: t, key: k))
        case .set(let t, let k, let p, let v):
            guard var r = tables[t][k] else { throw FoldError(reason: "no object") }
            let old = r.values[p]; r.values[p] = v; tables[t][k] = r
            changes.set.modifications.append(ObjectModification(table: t, key: k, properties: [PropertyDelta(property: p, oldValue: old, newValue: v)]))
        case .delete(let t, let k):
            guard tables[t][k] != nil else { throw FoldError(reason: "no object") }
            changes.set.deletedRecords[TableKey(table: t, key: k)] = tables[t][k]; tables[t][k] = nil; changes.set.deletions.append(TableKey(table: t, key: k))
        default: break
        }
    }
    func applying(_ commit: Commit) throws(FoldError) -> (state: StoreState, changes: ChangeSet) {
        var s = self; var b = ChangeSetBuilder()
        for e in commit.events { try s.apply(e, changes: &b) }
        s.version = commit.version
        return (s, b.build(version: commit.version))
    }
}
