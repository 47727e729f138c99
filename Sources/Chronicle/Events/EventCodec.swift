import Foundation

/// The compact binary encoding of values, schemas, events and commits.
///
/// This is the payload of every journal record; the "Journal format" article
/// documents it byte by byte. Decoding is total: malformed input throws
/// ``BinaryReader/Malformed``, never traps, and never allocates more than the
/// remaining input can justify.
///
/// Forward compatibility rests on the tags: a newer Chronicle adds an event
/// kind, a schema change, a value type or a property attribute by giving it
/// a new tag (or flag bit), without raising the journal's format version.
/// A tag or flag this build does not know throws a `Malformed` whose
/// `isUnknownTag` is set, which readers report as a journal written by a
/// newer version (``JournalError/writtenByNewerVersion(version:offset:detail:)``),
/// never as damage.
enum EventCodec {
    // Value tags.
    private enum ValueTag: UInt8 {
        case null = 0, boolFalse, boolTrue, int, float, double, string, data, date, uuid, objectId, decimal, link, list, set, map
    }
    // Event tags.
    private enum EventTag: UInt8 {
        case defineType = 1, addProperty, create, set, delete, listInsert, listRemove, listMove, listReplace,
             setInsert, setRemove, mapSet, mapRemove, clear, changeSchema
    }
    // Schema-change tags (after the `changeSchema` event tag).
    private enum SchemaChangeTag: UInt8 {
        case removeProperty = 1, renameProperty, changeProperty, renameType, removeType, changeEmbedding, setSchemaVersion
    }

    /// Collections inside collections are not part of the model; the limit
    /// keeps hostile input from recursing deeply.
    static let maximumNesting = 2

    // MARK: Commit

    static func encode(_ commit: Commit) -> [UInt8] {
        var w = BinaryWriter(capacity: 32 + commit.events.count * 32)
        encode(commit, into: &w)
        return w.bytes
    }

    static func encode(_ commit: Commit, into w: inout BinaryWriter) {
        encodeHeader(version: commit.version, timestamp: commit.timestamp, label: commit.label, metadata: commit.metadata,
                     eventCount: commit.events.count, into: &w)
        // Through the buffer: `for event in commit.events` copies each
        // event out (retaining its payload) and destroys the copy again;
        // a buffer element is passed to `encode` in place.
        commit.events.withUnsafeBufferPointer { events in
            for index in events.indices { encode(events[index], into: &w) }
        }
    }

    /// Encodes what comes before a commit's events: its version, time,
    /// label and metadata, and the number of events that follow.
    static func encodeHeader(version: UInt64, timestamp: Date, label: String?, metadata: [String: String], eventCount: Int,
                             into w: inout BinaryWriter) {
        w.varint(version)
        w.fixed64(timestamp.timeIntervalSinceReferenceDate.bitPattern)
        if let label { w.byte(1); w.string(label) } else { w.byte(0) }
        w.varint(metadata.count)
        for key in metadata.keys.sorted() {
            w.string(key)
            w.string(metadata[key]!)
        }
        w.varint(eventCount)
    }

    /// The most bytes ``encodeHeader(version:timestamp:label:metadata:eventCount:into:)``
    /// writes for `label` and `metadata`, whatever the version, time and
    /// count. O(size of the label and metadata).
    static func maximumHeaderSize(label: String?, metadata: [String: String]) -> Int {
        let varint = BinaryWriter.maximumVarintSize
        var size = varint + 8 + 1 + varint + varint  // version, time, label flag, metadata count, event count
        if let label { size += varint + label.utf8.count }
        for (key, value) in metadata { size += 2 * varint + key.utf8.count + value.utf8.count }
        return size
    }

    /// Encodes the start of the `.create` of object `key` of `table`
    /// holding `valueCount` values, exactly as ``encode(_:into:)`` encodes
    /// a `.create` event: the values' encodings follow, in order, each as
    /// ``encode(_:into:)`` writes a value. A store's write encodes the
    /// objects `add` creates so, straight from their records, without
    /// making the event.
    static func encodeCreateStart(table: Int, key: ObjectKey, valueCount: Int, into w: inout BinaryWriter) {
        w.target(EventTag.create.rawValue, table: table, key: key.rawValue)
        w.varint(valueCount)
    }

    static func decodeCommit(_ bytes: UnsafeRawBufferPointer) throws(BinaryReader.Malformed) -> Commit {
        var keep = KeepCreateValues()
        return try decodeCommit(bytes, creates: &keep)
    }

    /// The version of the commit encoded in `bytes`, without decoding the rest. O(1).
    static func decodeVersion(_ bytes: UnsafeRawBufferPointer) throws(BinaryReader.Malformed) -> UInt64 {
        var r = BinaryReader(bytes)
        return try r.varint()
    }

    static func decodeCommit(_ bytes: [UInt8]) throws(BinaryReader.Malformed) -> Commit {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(BinaryReader.Malformed) -> Commit in try decodeCommit(raw) }
        }
        return try result.get()
    }

    static func decodeCommit(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> Commit {
        var keep = KeepCreateValues()
        return try decodeCommit(&r, creates: &keep)
    }

    /// The commit in `bytes`, its `.create` events decoded into `creates`
    /// rather than into the events, when `creates` takes them (see
    /// ``CreateValuesReceiver``).
    static func decodeCommit<Creates: CreateValuesReceiver>(
        _ bytes: UnsafeRawBufferPointer, creates: inout Creates
    ) throws(BinaryReader.Malformed) -> Commit {
        var r = BinaryReader(bytes)
        let commit = try decodeCommit(&r, creates: &creates)
        guard r.isAtEnd else { throw r.fail("\(r.remaining) unexpected bytes after the commit") }
        return commit
    }

    // Generic over where creates go, and specialised for each: the fold's
    // decodes them straight into records (no array of values per object,
    // and no event, made and destroyed); every other reader keeps them in
    // the events.
    static func decodeCommit<Creates: CreateValuesReceiver>(
        _ r: inout BinaryReader, creates: inout Creates
    ) throws(BinaryReader.Malformed) -> Commit {
        let version = try r.varint()
        let timestamp = Date(timeIntervalSinceReferenceDate: Double(bitPattern: try r.fixed64()))
        let label: String?
        switch try r.byte() {
        case 0: label = nil
        case 1: label = try r.string()
        case let other: throw r.fail("label flag \(other) is neither 0 nor 1")
        }
        let metadataCount = try r.count(limit: r.remaining / 2)
        var metadata: [String: String] = [:]
        for _ in 0..<metadataCount {
            let key = try r.string()
            metadata[key] = try r.string()
        }
        let eventCount = try r.count(limit: r.remaining)
        var events: [Event] = []
        // Taken creates leave the events empty or short: a commit of
        // creates then allocates no array of events at all.
        if Creates.keepsValues { events.reserveCapacity(eventCount) } else { creates.expect(events: eventCount) }
        for _ in 0..<eventCount {
            if !Creates.keepsValues, let (table, key, count) = createHeader(&r) {
                try creates.decodeCreate(table: table, key: key, valueCount: count, before: events.count, from: &r)
            } else if let event = try decodeEvent(&r, creates: &creates, position: events.count) {
                events.append(event)
            }
        }
        return Commit(version: version, timestamp: timestamp, label: label, metadata: metadata, events: events)
    }

    // MARK: Events

    static func encode(_ event: Event, into w: inout BinaryWriter) {
        func target(_ tag: EventTag, _ table: Int, _ key: ObjectKey) {
            w.target(tag.rawValue, table: table, key: key.rawValue)
        }
        switch event {
        case .defineType(let schema):
            w.byte(EventTag.defineType.rawValue)
            encode(schema, into: &w)
        case .addProperty(let table, let property):
            w.byte(EventTag.addProperty.rawValue); w.varint(table)
            encode(property, into: &w)
        case .changeSchema(let change):
            w.byte(EventTag.changeSchema.rawValue)
            encode(change, into: &w)
        case .create(let table, let key, let values):
            target(.create, table, key)
            w.varint(values.count)
            // In place, for the reason `encode(_:into:)` of a commit gives.
            values.withUnsafeBufferPointer { values in
                for index in values.indices { encode(values[index], into: &w) }
            }
        case .set(let table, let key, let property, let value):
            target(.set, table, key); w.varint(property); encode(value, into: &w)
        case .delete(let table, let key):
            target(.delete, table, key)
        case .listInsert(let table, let key, let property, let index, let value):
            target(.listInsert, table, key); w.varint(property); w.varint(index); encode(value, into: &w)
        case .listRemove(let table, let key, let property, let index):
            target(.listRemove, table, key); w.varint(property); w.varint(index)
        case .listMove(let table, let key, let property, let from, let to):
            target(.listMove, table, key); w.varint(property); w.varint(from); w.varint(to)
        case .listReplace(let table, let key, let property, let index, let value):
            target(.listReplace, table, key); w.varint(property); w.varint(index); encode(value, into: &w)
        case .setInsert(let table, let key, let property, let value):
            target(.setInsert, table, key); w.varint(property); encode(value, into: &w)
        case .setRemove(let table, let key, let property, let value):
            target(.setRemove, table, key); w.varint(property); encode(value, into: &w)
        case .mapSet(let table, let key, let property, let mapKey, let value):
            target(.mapSet, table, key); w.varint(property); w.string(mapKey); encode(value, into: &w)
        case .mapRemove(let table, let key, let property, let mapKey):
            target(.mapRemove, table, key); w.varint(property); w.string(mapKey)
        case .clear(let table, let key, let property):
            target(.clear, table, key); w.varint(property)
        }
    }

    static func decodeEvent(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> Event {
        var keep = KeepCreateValues()
        // Never `nil`: values kept, every event is returned.
        return try decodeEvent(&r, creates: &keep, position: 0)!
    }

    /// The next event, or `nil` for a `.create` event `creates` took
    /// (``CreateValuesReceiver/keepsValues`` `false`), which then comes
    /// before the commit's event at `position`.
    static func decodeEvent<Creates: CreateValuesReceiver>(
        _ r: inout BinaryReader, creates: inout Creates, position: Int
    ) throws(BinaryReader.Malformed) -> Event? {
        let tagOffset = r.offset
        let rawTag = try r.byte()
        guard let tag = EventTag(rawValue: rawTag) else { throw .unknownTag(offset: tagOffset, "unknown event tag \(rawTag)") }
        switch tag {
        case .defineType:
            return .defineType(try decodeSchema(&r))
        case .addProperty:
            let table = try index(&r)
            return .addProperty(table: table, try decodeProperty(&r))
        case .changeSchema:
            return .changeSchema(try decodeSchemaChange(&r))
        default:
            break
        }
        let table = try index(&r)
        let key = ObjectKey(try r.signed())
        switch tag {
        case .defineType, .addProperty, .changeSchema:
            preconditionFailure("handled above")
        case .create:
            let count = try r.count(limit: r.remaining)
            guard Creates.keepsValues else {
                try creates.decodeCreate(table: table, key: key, valueCount: count, before: position, from: &r)
                return nil
            }
            var values: [PersistedValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try decodeValue(&r)) }
            return .create(table: table, key: key, values: values)
        case .set:
            return .set(table: table, key: key, property: try index(&r), value: try decodeValue(&r))
        case .delete:
            return .delete(table: table, key: key)
        case .listInsert:
            return .listInsert(table: table, key: key, property: try index(&r), index: try index(&r), value: try decodeValue(&r))
        case .listRemove:
            return .listRemove(table: table, key: key, property: try index(&r), index: try index(&r))
        case .listMove:
            return .listMove(table: table, key: key, property: try index(&r), from: try index(&r), to: try index(&r))
        case .listReplace:
            return .listReplace(table: table, key: key, property: try index(&r), index: try index(&r), value: try decodeValue(&r))
        case .setInsert:
            return .setInsert(table: table, key: key, property: try index(&r), value: try decodeValue(&r))
        case .setRemove:
            return .setRemove(table: table, key: key, property: try index(&r), value: try decodeValue(&r))
        case .mapSet:
            return .mapSet(table: table, key: key, property: try index(&r), mapKey: try r.string(), value: try decodeValue(&r))
        case .mapRemove:
            return .mapRemove(table: table, key: key, property: try index(&r), mapKey: try r.string())
        case .clear:
            return .clear(table: table, key: key, property: try index(&r))
        }
    }

    /// The next event's table index, key and value count if it is a
    /// `.create` whose header has its commonest form — a one-byte table
    /// index, a key of one to four bytes, a one-byte count — read from one
    /// load and consumed; `nil`, reading nothing, for anything else, which
    /// ``decodeEvent(_:creates:position:)`` then reads (and checks) as it
    /// reads every event. The same values it would read: a fold's creates
    /// skip its frame and its switch, and a varint call for each field.
    /// O(1).
    @inline(__always)
    static func createHeader(_ r: inout BinaryReader) -> (table: Int, key: ObjectKey, count: Int)? {
        // The tag, then a table index below 0x80.
        guard let word = r.peekWord(), word & 0x80FF == UInt64(EventTag.create.rawValue) else { return nil }
        // Then the key's varint.
        guard let (raw, length) = BinaryReader.oneToFourByteVarint(word &>> 16) else { return nil }
        // The count's byte is at most the word's seventh (2 + 4).
        let countAt = 2 &+ length
        let count = Int(truncatingIfNeeded: word &>> UInt64(truncatingIfNeeded: 8 &* countAt) & 0xFF)
        // As `count(limit: r.remaining)` checks it, from before the count.
        guard count < 0x80, count <= r.remaining &- countAt else { return nil }
        r.skipPeeked(countAt &+ 1)
        return (Int(truncatingIfNeeded: word &>> 8 & 0x7F), ObjectKey(Int64(bitPattern: (raw &>> 1) ^ (0 &- (raw & 1)))), count)
    }

    /// Table, property and list indexes: small non-negative integers.
    private static func index(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> Int {
        try r.count(limit: Int(Int32.max))
    }

    // MARK: Schema

    static func encode(_ change: SchemaChange, into w: inout BinaryWriter) {
        switch change {
        case let .removeProperty(table, property):
            w.byte(SchemaChangeTag.removeProperty.rawValue); w.varint(table); w.varint(property)
        case let .renameProperty(table, property, name):
            w.byte(SchemaChangeTag.renameProperty.rawValue); w.varint(table); w.varint(property); w.string(name)
        case let .changeProperty(table, property, schema):
            w.byte(SchemaChangeTag.changeProperty.rawValue); w.varint(table); w.varint(property)
            encode(schema, into: &w)
        case let .renameType(table, name):
            w.byte(SchemaChangeTag.renameType.rawValue); w.varint(table); w.string(name)
        case let .removeType(table):
            w.byte(SchemaChangeTag.removeType.rawValue); w.varint(table)
        case let .changeEmbedding(table, isEmbedded):
            w.byte(SchemaChangeTag.changeEmbedding.rawValue); w.varint(table); w.byte(isEmbedded ? 1 : 0)
        case let .setSchemaVersion(version):
            w.byte(SchemaChangeTag.setSchemaVersion.rawValue); w.varint(version)
        }
    }

    static func decodeSchemaChange(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> SchemaChange {
        let tagOffset = r.offset
        let rawTag = try r.byte()
        guard let tag = SchemaChangeTag(rawValue: rawTag) else {
            throw .unknownTag(offset: tagOffset, "unknown schema change tag \(rawTag)")
        }
        switch tag {
        case .removeProperty: return .removeProperty(table: try index(&r), property: try index(&r))
        case .renameProperty: return .renameProperty(table: try index(&r), property: try index(&r), to: try r.string())
        case .changeProperty: return .changeProperty(table: try index(&r), property: try index(&r), try decodeProperty(&r))
        case .renameType: return .renameType(table: try index(&r), to: try r.string())
        case .removeType: return .removeType(table: try index(&r))
        case .changeEmbedding:
            let table = try index(&r)
            switch try r.byte() {
            case 0: return .changeEmbedding(table: table, isEmbedded: false)
            case 1: return .changeEmbedding(table: table, isEmbedded: true)
            case let other: throw r.fail("embedding flag \(other) is neither 0 nor 1")
            }
        case .setSchemaVersion: return .setSchemaVersion(try r.varint())
        }
    }

    static func encode(_ schema: TypeSchema, into w: inout BinaryWriter) {
        w.string(schema.name)
        w.byte(schema.isEmbedded ? 1 : 0)
        w.varint(schema.properties.count)
        for property in schema.properties { encode(property, into: &w) }
    }

    static func decodeSchema(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> TypeSchema {
        let name = try r.string()
        let flagsOffset = r.offset
        let flags = try r.byte()
        guard flags <= 1 else { throw .unknownTag(offset: flagsOffset, "unknown type flags \(flags)") }
        let count = try r.count(limit: r.remaining / 4)
        var properties: [PropertySchema] = []
        properties.reserveCapacity(count)
        for _ in 0..<count { properties.append(try decodeProperty(&r)) }
        return TypeSchema(name: name, isEmbedded: flags == 1, properties: properties)
    }

    static func encode(_ property: PropertySchema, into w: inout BinaryWriter) {
        w.string(property.name)
        w.byte(property.type.rawValue)
        if let objectType = property.objectType { w.byte(1); w.string(objectType) } else { w.byte(0) }
        w.byte(property.collection.rawValue)
        w.byte((property.isOptional ? 1 : 0) | (property.isPrimaryKey ? 2 : 0) | (property.isIndexed ? 4 : 0)
               | (property.declaredDefault != nil ? 8 : 0))
        if let declaredDefault = property.declaredDefault { encode(declaredDefault, into: &w) }
    }

    static func decodeProperty(_ r: inout BinaryReader) throws(BinaryReader.Malformed) -> PropertySchema {
        let name = try r.string()
        let typeOffset = r.offset
        let rawType = try r.byte()
        guard let type = PropertyType(rawValue: rawType) else { throw .unknownTag(offset: typeOffset, "unknown property type \(rawType)") }
        let objectType: String?
        switch try r.byte() {
        case 0: objectType = nil
        case 1: objectType = try r.string()
        case let other: throw r.fail("object-type flag \(other) is neither 0 nor 1")
        }
        let collectionOffset = r.offset
        let rawCollection = try r.byte()
        guard let collection = CollectionKind(rawValue: rawCollection) else {
            throw .unknownTag(offset: collectionOffset, "unknown collection kind \(rawCollection)")
        }
        let flagsOffset = r.offset
        let flags = try r.byte()
        guard flags < 16 else { throw .unknownTag(offset: flagsOffset, "unknown property flags \(flags)") }
        let declaredDefault = flags & 8 != 0 ? try decodeValue(&r) : nil
        return PropertySchema(name: name, type: type, objectType: objectType, collection: collection,
                              isOptional: flags & 1 != 0, isPrimaryKey: flags & 2 != 0, isIndexed: flags & 4 != 0,
                              declaredDefault: declaredDefault)
    }

    // MARK: Values

    static func encode(_ value: PersistedValue, into w: inout BinaryWriter) {
        switch value {
        case .null: w.byte(ValueTag.null.rawValue)
        case .bool(let v): w.byte(v ? ValueTag.boolTrue.rawValue : ValueTag.boolFalse.rawValue)
        // Tag and payload in one store each (see `BinaryWriter`).
        case .int(let v): w.tagged(ValueTag.int.rawValue, signed: v)
        case .float(let v): w.tagged(ValueTag.float.rawValue, fixed: v.bitPattern)
        case .double(let v): w.tagged(ValueTag.double.rawValue, fixed: v.bitPattern)
        case .string(let v): w.taggedString(ValueTag.string.rawValue, v)
        case .data(let v): w.byte(ValueTag.data.rawValue); w.blob(v)
        case .date(let v): w.tagged(ValueTag.date.rawValue, fixed: v.timeIntervalSinceReferenceDate.bitPattern)
        case .uuid(let v):
            w.byte(ValueTag.uuid.rawValue)
            withUnsafeBytes(of: v.uuid) { w.raw($0) }
        case .objectId(let v): w.byte(ValueTag.objectId.rawValue); w.raw(v.bytes)
        case .decimal(let v): w.byte(ValueTag.decimal.rawValue); w.string(v.description)
        case .link(let key): w.tagged(ValueTag.link.rawValue, signed: key.rawValue)
        case .list(let values):
            w.byte(ValueTag.list.rawValue); w.varint(values.count)
            for v in values { encode(v, into: &w) }
        case .set(let values):
            w.byte(ValueTag.set.rawValue); w.varint(values.count)
            for v in values { encode(v, into: &w) }
        case .map(let entries):
            w.byte(ValueTag.map.rawValue); w.varint(entries.count)
            for entry in entries { w.string(entry.key); encode(entry.value, into: &w) }
        }
    }

    static func encode(_ value: PersistedValue) -> [UInt8] {
        var w = BinaryWriter()
        encode(value, into: &w)
        return w.bytes
    }

    /// The tag an integer value starts with in the encoding: the fold's
    /// read-ahead decodes integers and strings itself, straight into a
    /// record (``DecodedCreates``), and hands every other value to
    /// ``decodeValue(_:depth:)``.
    static var intTag: UInt8 { ValueTag.int.rawValue }
    /// The tag a string value starts with (see ``intTag``).
    static var stringTag: UInt8 { ValueTag.string.rawValue }

    static func decodeValue(_ r: inout BinaryReader, depth: Int = 0) throws(BinaryReader.Malformed) -> PersistedValue {
        let tagOffset = r.offset
        let rawTag = try r.byte()
        guard let tag = ValueTag(rawValue: rawTag) else { throw .unknownTag(offset: tagOffset, "unknown value tag \(rawTag)") }
        switch tag {
        case .null: return .null
        case .boolFalse: return .bool(false)
        case .boolTrue: return .bool(true)
        case .int: return .int(try r.signed())
        case .float: return .float(Float(bitPattern: try r.fixed32()))
        case .double: return .double(Double(bitPattern: try r.fixed64()))
        case .string: return .string(try r.string())
        case .data: return .data(Data(try r.blob()))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: try r.fixed64())))
        case .uuid:
            let b = try r.bytes(16)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                     b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .objectId:
            return .objectId(ObjectId(bytes: try r.bytes(12))!)
        case .decimal:
            let start = r.offset
            let text = try r.string()
            guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw BinaryReader.Malformed(offset: start, reason: "decimal \"\(text)\" does not parse")
            }
            return .decimal(value)
        case .link: return .link(ObjectKey(try r.signed()))
        case .list, .set, .map:
            guard depth < maximumNesting else { throw r.fail("collections nested deeper than \(maximumNesting)") }
            let count = try r.count(limit: r.remaining)
            if tag == .map {
                var entries: [MapEntry] = []
                entries.reserveCapacity(count)
                for _ in 0..<count {
                    let key = try r.string()
                    entries.append(MapEntry(key: key, value: try decodeValue(&r, depth: depth + 1)))
                }
                return .map(entries)
            }
            var values: [PersistedValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try decodeValue(&r, depth: depth + 1)) }
            return tag == .list ? .list(values) : .set(values)
        }
    }
}

/// Where ``EventCodec`` puts the `.create` events it decodes: in the
/// commit's events (``KeepCreateValues``), or, for the fold, taken out of
/// them whole, each object's values decoded straight into its record, in
/// event order (the decoding counterpart of ``EventCodec/encodeCreateStart(table:key:valueCount:into:)``).
protocol CreateValuesReceiver {
    /// Whether creates stay in the events; `false` sends each to
    /// ``decodeCreate(table:key:valueCount:before:from:)`` and leaves it
    /// out of the commit's events.
    static var keepsValues: Bool { get }
    /// Decodes the next `.create` event's `valueCount` values from
    /// `reader` (as ``EventCodec/decodeValue(_:depth:)`` does) and keeps
    /// them with the event's `table` and `key`. `position`: the index, in
    /// the commit's events, of the event the create came before (the
    /// number of events kept so far). What it throws, the decode throws.
    mutating func decodeCreate(table: Int, key: ObjectKey, valueCount: Int, before position: Int,
                               from reader: inout BinaryReader) throws(BinaryReader.Malformed)
    /// Told, before a commit's events are decoded, how many there are:
    /// at most that many creates come.
    mutating func expect(events count: Int)
}

/// Creates stay in the events with their values: every decode but the fold's.
struct KeepCreateValues: CreateValuesReceiver {
    static var keepsValues: Bool { true }
    func expect(events count: Int) {}
    func decodeCreate(table: Int, key: ObjectKey, valueCount: Int, before position: Int,
                      from reader: inout BinaryReader) throws(BinaryReader.Malformed) {
        preconditionFailure("creates are kept in the events")
    }
}
