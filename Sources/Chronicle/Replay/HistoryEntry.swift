import Foundation

/// One property of an object and its value, by name.
public struct PropertyValue: Sendable, Hashable {
    /// The property's name (a dotted path for a key path through links).
    public let name: String
    /// Its value.
    public let value: PersistedValue

    /// A property `name` holding `value`.
    public init(name: String, value: PersistedValue) {
        self.name = name
        self.value = value
    }
}

/// How one property changed, by name: old value → new value.
///
/// For collections the values are the whole collection before and after.
public struct PropertyValueChange: Sendable, Hashable {
    /// The property's name.
    public let name: String
    /// The value before.
    public let oldValue: PersistedValue
    /// The value after.
    public let newValue: PersistedValue

    /// A change of `name` from `oldValue` to `newValue`.
    public init(name: String, oldValue: PersistedValue, newValue: PersistedValue) {
        self.name = name
        self.oldValue = oldValue
        self.newValue = newValue
    }
}

/// One commit that changed one property of one object: an element of
/// `Store.history(of:keyPath:)` for any key path.
///
/// The commit that created the object is the first entry (``oldValue`` is
/// `nil`), the one that deleted it the last (``newValue`` is `nil`). Changes
/// the fold made on its own count too: a link that became `nil` because its
/// target was deleted, say.
public struct PropertyHistoryEntry: Sendable, Hashable {
    /// The version of the commit.
    public let version: UInt64
    /// When the commit was made.
    public let timestamp: Date
    /// The commit's label, if any.
    public let label: String?
    /// The property, by name (a dotted path for a key path through links).
    public let property: String
    /// The value before the commit; `nil` when the commit created the object.
    public let oldValue: PersistedValue?
    /// The value after the commit; `nil` when the commit deleted the object.
    public let newValue: PersistedValue?
}

/// One commit that changed one object: an element of ``Store/history(of:)``.
public struct ObjectHistoryEntry: Sendable, Hashable {
    /// What the commit did to the object.
    public enum Change: Sendable, Hashable {
        /// The commit created the object with these values.
        case created([PropertyValue])
        /// The commit changed these properties.
        case modified([PropertyValueChange])
        /// The commit deleted the object, which held these values at the version before.
        case deleted([PropertyValue])
    }

    /// The version of the commit.
    public let version: UInt64
    /// When the commit was made.
    public let timestamp: Date
    /// The commit's label, if any.
    public let label: String?
    /// What changed.
    public let change: Change
}
