/// An object as it was at one version, with its values by name.
public struct ObjectSnapshot: Sendable, Hashable {
    /// The name of the object's type.
    public let typeName: String
    /// The type's table index in the journal.
    public let table: Int
    /// The object's key.
    public let key: ObjectKey
    /// The object's primary-key value, if its type has a primary key.
    public let primaryKey: PersistedValue?
    /// Every property and its value, in schema order.
    public let values: [PropertyValue]
}

/// The changed properties of an object that exists at both versions of a ``StoreDiff``.
public struct ObjectDiff: Sendable, Hashable {
    /// The name of the object's type.
    public let typeName: String
    /// The type's table index in the journal.
    public let table: Int
    /// The object's key.
    public let key: ObjectKey
    /// The object's primary-key value, if its type has a primary key.
    public let primaryKey: PersistedValue?
    /// The properties whose values differ, old → new, in schema order.
    public let changes: [PropertyValueChange]
}

/// What differs between two versions of a journal: objects inserted,
/// deleted and changed. Made by ``Store/diff(from:to:)``.
///
/// Only the end points count: an object created and deleted in between
/// appears nowhere, and a property changed and changed back is not listed.
/// Lists are ordered by table, then key.
///
/// Across a migration, objects are compared by identity: a property or
/// type renamed in between is named as at the later version, and what the
/// migration changed on its own is listed like any change — a retyped
/// value converted, an added property's default (old value `.null`), a
/// removed property's value (new value `.null`). The objects of a type
/// removed in between are ``deleted``.
public struct StoreDiff: Sendable, Hashable {
    /// The version compared from.
    public let from: UInt64
    /// The version compared to.
    public let to: UInt64
    /// Objects that exist at ``to`` and not at ``from``, as they are at ``to``.
    public let inserted: [ObjectSnapshot]
    /// Objects that exist at ``from`` and not at ``to``, as they were at ``from``.
    public let deleted: [ObjectSnapshot]
    /// Objects that exist at both and whose values differ.
    public let modified: [ObjectDiff]
    /// The schema events committed between the two versions:
    /// ``Event/defineType(_:)``, ``Event/addProperty(table:_:)`` and a
    /// migration's ``Event/changeSchema(_:)``. They tell a property added
    /// (or removed) in between from one that held `.null`.
    public let schemaChanges: [Event]

    /// Whether nothing differs.
    public var isEmpty: Bool { inserted.isEmpty && deleted.isEmpty && modified.isEmpty && schemaChanges.isEmpty }
}
