/// A change to an observed object or projection, as ``ObjectChanges``
/// streams and `observe(keyPaths:_:)` callbacks deliver it.
public enum ObjectChange<T: Sendable>: Sendable {
    /// Chronicle never delivers this case today; it exists so that code
    /// written against the Realm SDK's exhaustive `switch` compiles.
    case error(any Error)
    /// Observed properties changed. The object is the live object.
    case change(T, [PropertyChange])
    /// The object was deleted. It is the last change a stream delivers.
    case deleted
}

/// One property's change: its name and its value before and after.
///
/// `oldValue` is always filled in: the fold knows the state before every
/// commit. For a projection, the name is the projected property's and the
/// values are projected (transformed) values.
public struct PropertyChange: Sendable, CustomStringConvertible {
    /// The property's name (for a projection, the projected property's name).
    public let name: String
    /// The value before the change.
    public let oldValue: (any Sendable)?
    /// The value after the change.
    public let newValue: (any Sendable)?

    /// A readable description, for logs and test failures.
    public var description: String {
        "\(name): \(oldValue.map { "\($0)" } ?? "nil") → \(newValue.map { "\($0)" } ?? "nil")"
    }
}

/// A change to an observed collection.
///
/// Index arrays follow the Realm SDK and `UITableView` batch updates:
/// `deletions` and `modifications` are indexes in the collection *before*
/// the change, `insertions` indexes *after* it. An object that starts or
/// stops matching a query is an insertion or a deletion; one that moves in
/// a sorted result is a deletion plus an insertion.
public enum CollectionChange<Collection: Sendable>: Sendable {
    /// The first value of every stream: the collection as it is now.
    case initial(Collection)
    /// The collection changed since the last value the stream delivered.
    case update(Collection, deletions: [Int], insertions: [Int], modifications: [Int])
    /// Chronicle never delivers this case today; it exists for parity with the Realm SDK.
    case error(any Error)
}

/// A key path given to an observation that names nothing Chronicle can observe.
public enum ObservationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key path names no persisted (or, for a projection, projected) property.
    case unknownKeyPath(String, type: String)

    /// A readable description, for logs and test failures.
    public var description: String {
        switch self {
        case let .unknownKeyPath(path, type):
            "'\(path)' is not a persisted property of \(type) (nor a projected one); an observation needs key paths it can match"
        }
    }
}
