import Foundation

/// One commit that changed one property of one object, with the values
/// typed as the key path's value: an element of
/// `store.history(of: account, keyPath: \.balance)`, whose `oldValue` and
/// `newValue` are `Int?`s.
///
/// As for ``PropertyHistoryEntry``, the commit that created the object is
/// the first entry (``oldValue`` is `nil`) and the one that deleted it the
/// last (``newValue`` is `nil`). For an optional property the values are
/// double optionals: `.some(nil)` is a stored `nil`.
public struct TypedHistoryEntry<Value: Sendable>: Sendable {
    /// The version of the commit.
    public let version: UInt64
    /// When the commit was made.
    public let timestamp: Date
    /// The commit's label, if any.
    public let label: String?
    /// The property, by name (a dotted path for a key path through links).
    public let property: String
    /// The value before the commit; `nil` when the commit created the object.
    public let oldValue: Value?
    /// The value after the commit; `nil` when the commit deleted the object.
    public let newValue: Value?
}

extension TypedHistoryEntry: Equatable where Value: Equatable {}
extension TypedHistoryEntry: Hashable where Value: Hashable {}

extension TypedHistoryEntry {
    /// `entry` with its values converted by `convert`.
    init(_ entry: PropertyHistoryEntry, _ convert: (PersistedValue) throws(StoreError) -> Value) throws(StoreError) {
        version = entry.version
        timestamp = entry.timestamp
        label = entry.label
        property = entry.property
        oldValue = try entry.oldValue.map(convert)
        newValue = try entry.newValue.map(convert)
    }
}
