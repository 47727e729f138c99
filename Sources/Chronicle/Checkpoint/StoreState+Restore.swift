/// Rebuilding a state from its stored parts (a checkpoint file): the schema,
/// the objects (``TableRestorer``) and the next keys. Indexes and backlinks
/// are derived, so they are recomputed, and the result is checked like the
/// fold checks events.
extension StoreState {
    /// Defines every type of a checkpoint at once (types may link to types
    /// defined after them once properties were added), then checks them.
    mutating func restoreSchema(_ types: [TypeSchema]) throws(Reason) {
        for type in types {
            guard tableIndexByName[type.name] == nil else { throw .duplicateType(type.name) }
            define(type)
        }
        for type in types {
            try checkProperties(type.properties, ofType: type.name, embedded: type.isEmbedded)
        }
    }

    /// Sets the next key of `table`; it may only grow.
    mutating func restoreNextKey(_ nextKey: Int64, table: Int) throws(Reason) {
        guard tables.indices.contains(table) else { throw .noSuchTable(table) }
        guard nextKey >= tables[table].nextKey else { throw .invalidKey(ObjectKey(nextKey)) }
        tables[table].nextKey = nextKey
    }

    /// The tables that links touch: embedded types, types with a link
    /// property, and the types those properties link to. Their backlinks
    /// and link checks need every object, so they are never deferred.
    func tablesTouchedByLinks() -> Set<Int> {
        var touched = Set<Int>()
        for (table, type) in schema.enumerated() {
            if type.isEmbedded { touched.insert(table) }
            for property in type.properties where property.type == .object {
                touched.insert(table)
                if let target = linkTable(property) { touched.insert(target) }
            }
        }
        return touched
    }

    /// Leaves the objects and indexes of `table` (empty so far) to
    /// `deferred`, which builds them on first use.
    mutating func deferTable(_ table: Int, to deferred: any DeferredTable) {
        tables[table] = Table(schema: schema[table], deferred: deferred, nextKey: tables[table].nextKey)
    }

    /// Builds every table's backlinks from the links its objects' values
    /// hold, gathered by ``TableRestorer`` (`links[table]`: target key and link,
    /// in any order), each table's trie in one pass.
    ///
    /// - Complexity: O(l log l) for l links.
    mutating func restoreBacklinks(_ links: [[(target: Int64, link: Backlink)]]) {
        for (table, var links) in links.enumerated() where !links.isEmpty {
            links.sort { ($0.target, $0.link) < ($1.target, $1.link) }
            var backlinks = PersistentIntMap<SortedChunks<Backlink>>.Builder()
            var start = 0
            while start < links.count {
                var end = start + 1
                while end < links.count, links[end].target == links[start].target { end += 1 }
                backlinks.append(SortedChunks(ascending: links[start..<end].map(\.link)), forKey: links[start].target)
                start = end
            }
            tables[table].backlinks = backlinks.build()
        }
    }

    /// Finishes checking a restored state as the fold would have (values
    /// other than links were checked as they were restored): every link
    /// value fits its property and points at a live object, and embedded
    /// objects have at most one owner. O(objects of the types that have
    /// links or are embedded).
    func checkRestored() throws(Reason) {
        for (table, type) in schema.enumerated() {
            // Every link target must be a live object (links are filed under their targets' table).
            for (target, _) in tables[table].backlinks where !tables[table].objects.contains(target) {
                throw .danglingLink(table: table, key: ObjectKey(target))
            }
            let links = type.properties.indices.filter { type.properties[$0].type == .object }
            guard !links.isEmpty || type.isEmbedded else { continue }
            for (key, record) in tables[table].objects {
                for property in links {
                    try check(record[property], fits: type.properties[property])
                }
                if type.isEmbedded {
                    let owners = tables[table].backlinks[key]?.count ?? 0
                    guard owners <= 1 else { throw .embeddedObjectAlreadyOwned(table: table, key: ObjectKey(key)) }
                }
            }
        }
    }
}
