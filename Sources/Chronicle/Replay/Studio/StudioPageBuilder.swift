import Foundation

/// Folds a journal once and writes its Studio page: the page's markup, its
/// script, and the journal's data as JSON blocks the script reads lazily.
///
/// The data, in the order it is written:
/// - per chunk of ``commitsPerChunk`` commits, a summary block `s<i>`
///   (time, label, metadata, event counts per kind, the types and properties
///   each commit touched) and a change block `e<i>` (what each commit did to
///   the objects: the fold's ``ChangeSet``, values included, old → new);
/// - snapshot blocks `k<version>`: the schema and every object at that
///   version. One follows every commit that changed the schema (so the page
///   needs no schema rules of its own, whatever schema events a journal
///   holds), one closes the journal, and one follows a chunk once the values
///   written since the last snapshot outnumber the values alive — so the
///   page folds at most about one state's worth of changes to show any
///   version, and snapshots add at most about as much as the changes did;
/// - the `meta` block: versions, chunk size, snapshot versions, name tables,
///   and the problems met (damage, commits that do not fold).
///
/// Because the page folds the fold's change sets rather than events, it
/// reproduces ``Journal/state(at:)`` exactly and knows nothing of event kinds:
/// a kind it has never seen shows up by its name in the event counts.
struct StudioPageBuilder {
    /// Commits per summary and change block.
    static let commitsPerChunk = 1000
    /// Values that may be written between snapshots even when the state is smaller.
    static let minimumSnapshotSpacing = 50_000

    let journal: Journal
    let title: String
    var problems: [String]

    private var kinds = NameTable()
    private var typeNames = NameTable()
    private var propertyNames = NameTable()
    private var chunkTypes: [Set<Int>] = []
    private var snapshots: [UInt64] = []
    private var valuesSinceSnapshot = 0

    init(journal: Journal, title: String, problems: [String]) {
        self.journal = journal
        self.title = title
        self.problems = problems
    }

    /// Writes the whole page.
    /// - Complexity: one fold of the journal, O(its events and values), plus
    ///   the snapshots; memory O(one chunk + the state).
    mutating func write(to out: inout StudioJSONWriter) {
        out.raw(StudioTemplate.head)
        out.raw("<title>")
        out.raw(StudioTemplate.escapeText("Chronicle Studio — \(title)"))
        out.raw("</title>\n")
        out.raw(StudioTemplate.style)
        out.raw(StudioTemplate.body)
        let first = journal.baseVersion + 1
        var state = StoreState()
        var chunk = Chunk()
        var reader = journal.reader(from: first)
        while true {
            let commit: Commit
            do {
                guard let next = try reader.next() else { break }
                commit = next
            } catch {
                problems.append("Reading version \(reader.nextVersion) failed: \(error). The page shows versions up to \(state.version).")
                break
            }
            let folded: (state: StoreState, changes: ChangeSet)
            do {
                folded = try state.applying(commit)
            } catch {
                problems.append("Commit \(commit.version) does not fold: \(error). The page shows versions up to \(state.version); `chronicle verify` reports the same.")
                break
            }
            add(commit, changes: folded.changes, from: state, to: folded.state, into: &chunk)
            state = folded.state
            if folded.changes.schemaChanged { writeSnapshot(state, to: &out) }
            if chunk.count == Self.commitsPerChunk {
                write(&chunk, to: &out)
                if valuesSinceSnapshot >= max(Self.liveValues(state), Self.minimumSnapshotSpacing) { writeSnapshot(state, to: &out) }
            }
        }
        if chunk.count > 0 { write(&chunk, to: &out) }
        if snapshots.last != state.version { writeSnapshot(state, to: &out) }
        if journal.discardedTailBytes > 0 {
            problems.append("A torn tail of \(journal.discardedTailBytes) bytes follows the last commit (an interrupted write); it holds no whole commit and is not shown.")
        }
        writeMeta(first: first, last: state.version, to: &out)
        out.raw(StudioTemplate.script)
        out.raw("</body>\n</html>\n")
        out.flush()
    }

    /// The values of every object of `state`: what a snapshot of it holds.
    static func liveValues(_ state: StoreState) -> Int {
        state.schema.indices.reduce(0) { $0 + state.count(table: $1) * (state.schema[$1].properties.count + 1) }
    }

    /// The case name of an event, found by reflection so that event kinds
    /// added later are named without this file knowing them.
    static func kind(of event: Event) -> String {
        Mirror(reflecting: event).children.first?.label ?? String(describing: event)
    }

    // MARK: - Chunks

    /// One chunk's summary and change JSON, built apart from the page so
    /// snapshots can be written between them.
    private struct Chunk {
        var count = 0
        var summaries = StudioJSONWriter.buffer()
        var changes = StudioJSONWriter.buffer()
        var labels = NameTable()
        var metadata = NameTable()
        var metadataJSON: [String] = []
        var firstMillis: Int64 = 0
        var lastMillis: Int64 = 0
        var types = Set<Int>()
    }

    private mutating func add(_ commit: Commit, changes: ChangeSet, from old: StoreState, to new: StoreState, into chunk: inout Chunk) {
        let millis = Int64((commit.timestamp.timeIntervalSince1970 * 1000).rounded())
        if chunk.count == 0 { chunk.firstMillis = millis; chunk.lastMillis = millis }
        // Summary: [Δms, label, metadata, events, [kind, count…], [types], [properties]]
        // Swapped out, not copied: a copy would share the buffer and copy it on the first append.
        var s = StudioJSONWriter.buffer()
        swap(&s, &chunk.summaries)
        if chunk.count > 0 { s.byte(UInt8(ascii: ",")) }
        s.byte(UInt8(ascii: "["))
        s.int(millis - chunk.lastMillis)
        chunk.lastMillis = millis
        s.byte(UInt8(ascii: ","))
        s.int(commit.label.map { chunk.labels.id($0) } ?? -1)
        s.byte(UInt8(ascii: ","))
        if commit.metadata.isEmpty {
            s.int(-1)
        } else {
            var json = StudioJSONWriter.buffer()
            json.byte(UInt8(ascii: "["))
            for (index, key) in commit.metadata.keys.sorted().enumerated() {
                if index > 0 { json.byte(UInt8(ascii: ",")) }
                json.byte(UInt8(ascii: "["))
                json.string(key)
                json.byte(UInt8(ascii: ","))
                json.string(commit.metadata[key]!)
                json.byte(UInt8(ascii: "]"))
            }
            json.byte(UInt8(ascii: "]"))
            let text = String(decoding: json.bytes, as: UTF8.self)
            let id = chunk.metadata.id(text)
            if id == chunk.metadataJSON.count { chunk.metadataJSON.append(text) }
            s.int(id)
        }
        s.byte(UInt8(ascii: ","))
        s.int(commit.events.count)
        var counts: [Int: Int] = [:]
        var order: [Int] = []
        var tables = Set<Int>()
        for event in commit.events {
            let id = kinds.id(Self.kind(of: event))
            if counts[id] == nil { order.append(id) }
            counts[id, default: 0] += 1
            if let target = event.target { tables.insert(target.table) }
            if case .addProperty(let table, _) = event { tables.insert(table) }
            if case .defineType(let type) = event, let table = new.tableIndex(named: type.name) { tables.insert(table) }
        }
        s.raw(",[")
        for (index, id) in order.enumerated() {
            if index > 0 { s.byte(UInt8(ascii: ",")) }
            s.int(id)
            s.byte(UInt8(ascii: ","))
            s.int(counts[id]!)
        }
        for change in changes.insertions { tables.insert(change.table) }
        for change in changes.deletions { tables.insert(change.table) }
        var properties = Set<Int>()
        for modification in changes.modifications {
            tables.insert(modification.table)
            for delta in modification.properties {
                properties.insert(propertyNames.id(Self.propertyName(new, modification.table, delta.property)))
            }
        }
        let types = Set(tables.sorted().map { typeNames.id(Self.typeName(new, $0)) })
        chunk.types.formUnion(types)
        s.raw("],")
        Self.intArray(types.sorted(), to: &s)
        s.byte(UInt8(ascii: ","))
        Self.intArray(properties.sorted(), to: &s)
        s.byte(UInt8(ascii: "]"))
        swap(&s, &chunk.summaries)

        // Changes: [[inserted], [modified], [deleted], [schema changes]], or 0 for none.
        var c = StudioJSONWriter.buffer()
        swap(&c, &chunk.changes)
        if chunk.count > 0 { c.byte(UInt8(ascii: ",")) }
        if changes.isEmpty {
            c.byte(UInt8(ascii: "0"))
        } else {
            var values = 1
            c.byte(UInt8(ascii: "["))
            c.array(changes.insertions) { out, inserted in
                values += Self.object(inserted.table, inserted.key, new.object(table: inserted.table, key: inserted.key), to: &out)
            }
            c.byte(UInt8(ascii: ","))
            c.array(changes.modifications) { out, modification in
                out.byte(UInt8(ascii: "["))
                out.int(modification.table)
                out.byte(UInt8(ascii: ","))
                out.int(modification.key.rawValue)
                out.byte(UInt8(ascii: ","))
                out.array(modification.properties) { out, delta in
                    out.byte(UInt8(ascii: "["))
                    out.int(delta.property)
                    out.byte(UInt8(ascii: ","))
                    out.value(delta.oldValue)
                    out.byte(UInt8(ascii: ","))
                    out.value(delta.newValue)
                    out.byte(UInt8(ascii: "]"))
                    values += 2
                }
                out.byte(UInt8(ascii: "]"))
            }
            c.byte(UInt8(ascii: ","))
            c.array(changes.deletions) { out, deleted in
                values += Self.object(deleted.table, deleted.key, changes.deletedRecords[deleted], to: &out)
            }
            c.byte(UInt8(ascii: ","))
            c.array(changes.schemaChanged ? Self.schemaChanges(from: old.schema, to: new.schema) : []) { $0.string($1) }
            c.byte(UInt8(ascii: "]"))
            valuesSinceSnapshot += values
        }
        swap(&c, &chunk.changes)
        chunk.count += 1
    }

    private mutating func write(_ chunk: inout Chunk, to out: inout StudioJSONWriter) {
        let index = chunkTypes.count
        out.raw("<script type=\"application/json\" id=\"s\(index)\">{\"t\":")
        out.int(chunk.firstMillis)
        out.raw(",\"l\":")
        Self.stringArray(chunk.labels.names, to: &out)
        out.raw(",\"m\":[")
        // Metadata lists are JSON this builder wrote, with strings escaped.
        out.raw(chunk.metadataJSON.joined(separator: ","))
        out.raw("],\"c\":[")
        out.append(chunk.summaries)
        out.raw("]}</script>\n<script type=\"application/json\" id=\"e\(index)\">[")
        out.append(chunk.changes)
        out.raw("]</script>\n")
        chunkTypes.append(chunk.types)
        chunk = Chunk()
    }

    // MARK: - Snapshots and meta

    private mutating func writeSnapshot(_ state: StoreState, to out: inout StudioJSONWriter) {
        out.raw("<script type=\"application/json\" id=\"k\(state.version)\">{\"v\":")
        out.int(state.version)
        out.raw(",\"s\":[")
        for (table, type) in state.schema.enumerated() {
            if table > 0 { out.byte(UInt8(ascii: ",")) }
            out.raw("{\"n\":")
            out.string(type.name)
            out.raw(type.isEmbedded ? ",\"e\":true,\"p\":[" : ",\"e\":false,\"p\":[")
            for (index, property) in type.properties.enumerated() {
                if index > 0 { out.byte(UInt8(ascii: ",")) }
                out.byte(UInt8(ascii: "["))
                out.string(property.name)
                out.byte(UInt8(ascii: ","))
                out.string("\(property.type)")
                out.byte(UInt8(ascii: ","))
                if let objectType = property.objectType { out.string(objectType) } else { out.raw("null") }
                out.byte(UInt8(ascii: ","))
                out.string("\(property.collection)")
                out.raw(property.isOptional ? ",true" : ",false")
                out.raw(property.isPrimaryKey ? ",true" : ",false")
                out.raw(property.isIndexed ? ",true]" : ",false]")
            }
            out.raw("]}")
        }
        out.raw("],\"o\":[")
        for table in state.schema.indices {
            if table > 0 { out.byte(UInt8(ascii: ",")) }
            out.byte(UInt8(ascii: "["))
            for (index, (key, record)) in state.objects(table: table).enumerated() {
                if index > 0 { out.byte(UInt8(ascii: ",")) }
                out.byte(UInt8(ascii: "["))
                out.int(key.rawValue)
                out.byte(UInt8(ascii: ","))
                Self.values(record, to: &out)
                out.byte(UInt8(ascii: "]"))
            }
            out.byte(UInt8(ascii: "]"))
        }
        out.raw("]}</script>\n")
        snapshots.append(state.version)
        valuesSinceSnapshot = 0
    }

    private func writeMeta(first: UInt64, last: UInt64, to out: inout StudioJSONWriter) {
        out.raw("<script type=\"application/json\" id=\"meta\">{\"title\":")
        out.string(title)
        out.raw(",\"first\":")
        out.int(first)
        out.raw(",\"last\":")
        out.int(last)
        out.raw(",\"chunk\":")
        out.int(Self.commitsPerChunk)
        out.raw(",\"snapshots\":")
        Self.intArray(snapshots.map { Int($0) }, to: &out)
        out.raw(",\"kinds\":")
        Self.stringArray(kinds.names, to: &out)
        out.raw(",\"types\":")
        Self.stringArray(typeNames.names, to: &out)
        out.raw(",\"props\":")
        Self.stringArray(propertyNames.names, to: &out)
        out.raw(",\"chunkTypes\":[")
        for (index, types) in chunkTypes.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            Self.intArray(types.sorted(), to: &out)
        }
        out.raw("],\"problems\":")
        Self.stringArray(problems, to: &out)
        out.raw("}</script>\n")
    }

    // MARK: - Pieces

    /// `[table, key, [values]]`; returns the number of values written.
    private static func object(_ table: Int, _ key: ObjectKey, _ record: ObjectRecord?, to out: inout StudioJSONWriter) -> Int {
        out.byte(UInt8(ascii: "["))
        out.int(table)
        out.byte(UInt8(ascii: ","))
        out.int(key.rawValue)
        out.byte(UInt8(ascii: ","))
        if let record { values(record, to: &out) } else { out.raw("[]") }
        out.byte(UInt8(ascii: "]"))
        return (record?.count ?? 0) + 1
    }

    private static func values(_ record: ObjectRecord, to out: inout StudioJSONWriter) {
        out.array(record.values) { $0.value($1) }
    }

    private static func intArray(_ values: [Int], to out: inout StudioJSONWriter) {
        out.array(values) { $0.int($1) }
    }

    private static func stringArray(_ values: [String], to out: inout StudioJSONWriter) {
        out.array(values) { $0.string($1) }
    }

    static func typeName(_ state: StoreState, _ table: Int) -> String {
        state.schema.indices.contains(table) ? state.schema[table].name : "table \(table)"
    }

    static func propertyName(_ state: StoreState, _ table: Int, _ property: Int) -> String {
        let type = typeName(state, table)
        guard state.schema.indices.contains(table), state.schema[table].properties.indices.contains(property) else {
            return "\(type).property \(property)"
        }
        return "\(type).\(state.schema[table].properties[property].name)"
    }

    /// The schema changes between two schemas, by name: whatever events made
    /// them (types defined, properties added, or kinds of schema change this
    /// file does not know).
    static func schemaChanges(from old: [TypeSchema], to new: [TypeSchema]) -> [String] {
        var lines: [String] = []
        let before = Dictionary(old.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let after = Set(new.map(\.name))
        for type in new {
            guard let previous = before[type.name] else {
                lines.append("new type \(type.name)\(type.isEmbedded ? " (embedded)" : "") with \(type.properties.count) properties")
                continue
            }
            let names = Set(previous.properties.map(\.name))
            for property in type.properties where !names.contains(property.name) { lines.append("new property \(type.name).\(property.name)") }
            let current = Set(type.properties.map(\.name))
            for property in previous.properties where !current.contains(property.name) { lines.append("property \(type.name).\(property.name) removed") }
            for property in type.properties {
                if let was = previous.properties.first(where: { $0.name == property.name }), was != property {
                    lines.append("property \(type.name).\(property.name) changed")
                }
            }
        }
        for type in old where !after.contains(type.name) { lines.append("type \(type.name) removed") }
        return lines.isEmpty ? ["schema changed"] : lines
    }
}

/// Names numbered in the order first seen.
struct NameTable {
    private(set) var names: [String] = []
    private var ids: [String: Int] = [:]

    /// The number of `name`, assigned on first sight.
    mutating func id(_ name: String) -> Int {
        if let id = ids[name] { return id }
        ids[name] = names.count
        names.append(name)
        return names.count - 1
    }
}
