/// One change in a commit: the vocabulary of the journal.
///
/// Objects are named by their table (the index of their type in the order
/// the journal defined types) and their ``ObjectKey``; properties by their
/// index in the type's schema. Collection edits name the list, set or map
/// property of the object that owns it.
public enum Event: Hashable, Sendable {
    /// A new type; its table index is the number of types defined before it.
    case defineType(TypeSchema)
    /// A property appended to an existing type (additive migration). Objects
    /// that already exist hold the property's default value.
    case addProperty(table: Int, PropertySchema)
    /// Any other schema change: a property removed, renamed or redeclared,
    /// a type renamed, removed or made (not) embedded, the schema version.
    /// Migrations record these (see ``Migration``).
    case changeSchema(SchemaChange)
    /// A new object with a value for every property of its type, in order.
    case create(table: Int, key: ObjectKey, values: [PersistedValue])
    /// A new value for one property.
    case set(table: Int, key: ObjectKey, property: Int, value: PersistedValue)
    /// An object removed. Its embedded objects go with it, and links to it
    /// become `nil` (or leave the lists and sets that held it).
    case delete(table: Int, key: ObjectKey)
    /// An element inserted into a list at `index`.
    case listInsert(table: Int, key: ObjectKey, property: Int, index: Int, value: PersistedValue)
    /// The element at `index` removed from a list.
    case listRemove(table: Int, key: ObjectKey, property: Int, index: Int)
    /// A list element moved from one index to another.
    case listMove(table: Int, key: ObjectKey, property: Int, from: Int, to: Int)
    /// The element at `index` replaced.
    case listReplace(table: Int, key: ObjectKey, property: Int, index: Int, value: PersistedValue)
    /// A value added to a set (no effect if it is already there).
    case setInsert(table: Int, key: ObjectKey, property: Int, value: PersistedValue)
    /// A value removed from a set (no effect if it is not there).
    case setRemove(table: Int, key: ObjectKey, property: Int, value: PersistedValue)
    /// A map entry set.
    case mapSet(table: Int, key: ObjectKey, property: Int, mapKey: String, value: PersistedValue)
    /// A map entry removed.
    case mapRemove(table: Int, key: ObjectKey, property: Int, mapKey: String)
    /// Every element of a list, set or map removed.
    case clear(table: Int, key: ObjectKey, property: Int)
}

extension Event {
    /// The table and key of the object the event touches, if it touches one.
    public var target: (table: Int, key: ObjectKey)? {
        switch self {
        case .defineType, .addProperty, .changeSchema: nil
        case .create(let t, let k, _), .set(let t, let k, _, _), .delete(let t, let k),
             .listInsert(let t, let k, _, _, _), .listRemove(let t, let k, _, _), .listMove(let t, let k, _, _, _),
             .listReplace(let t, let k, _, _, _), .setInsert(let t, let k, _, _), .setRemove(let t, let k, _, _),
             .mapSet(let t, let k, _, _, _), .mapRemove(let t, let k, _, _), .clear(let t, let k, _):
            (t, k)
        }
    }
}
