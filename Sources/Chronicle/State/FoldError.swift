/// Why an event could not be folded into a ``StoreState``.
///
/// A failed fold leaves the state unchanged.
public struct FoldError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The event that failed, or `nil` when the commit as a whole was wrong.
    public var event: Event?
    /// The event's position in its commit, when folding a commit.
    public var eventIndex: Int?
    /// What is wrong.
    public var reason: Reason
    /// The failure in the app's terms — type, property and primary key as
    /// the model names them — when a store rejected a write; `nil` for a
    /// fold of raw events. ``description`` prefers it.
    public var explanation: String?

    /// An error for `event` (at `eventIndex` of its commit).
    public init(event: Event?, eventIndex: Int? = nil, reason: Reason) {
        self.event = event
        self.eventIndex = eventIndex
        self.reason = reason
    }

    /// What is wrong with an event.
    public enum Reason: Error, Hashable, Sendable, CustomStringConvertible {
        /// A commit's version is not the state's version + 1.
        case versionMismatch(expected: UInt64, actual: UInt64)
        /// A type with this name is already defined.
        case duplicateType(String)
        /// A type or property definition is malformed.
        case invalidSchema(String)
        /// No table has this index.
        case noSuchTable(Int)
        /// A link property names a type that is not defined.
        case undefinedType(String)
        /// The table's type has no property at this index.
        case noSuchProperty(table: Int, property: Int)
        /// No live object has this key.
        case noSuchObject(table: Int, key: ObjectKey)
        /// An object with this key exists already.
        case keyInUse(table: Int, key: ObjectKey)
        /// Object keys are non-negative.
        case invalidKey(ObjectKey)
        /// A create event has the wrong number of values.
        case valueCount(expected: Int, actual: Int)
        /// A value does not fit the property (its type, optionality or collection shape).
        case typeMismatch(property: String, value: PersistedValue)
        /// A list, set or map event names a property of another kind.
        case wrongCollection(property: String, expected: CollectionKind)
        /// A clear event names a property that is not a collection.
        case notACollection(property: String)
        /// A list index is out of range.
        case indexOutOfRange(index: Int, count: Int)
        /// Another object has this primary key.
        case duplicatePrimaryKey(PersistedValue, existing: ObjectKey)
        /// Primary keys cannot change.
        case primaryKeyChange(property: String)
        /// A link to an object that does not exist.
        case danglingLink(table: Int, key: ObjectKey)
        /// An embedded object already has an owner (or is linked twice).
        case embeddedObjectAlreadyOwned(table: Int, key: ObjectKey)

        /// A sentence saying what is wrong.
        public var description: String {
            switch self {
            case let .versionMismatch(expected, actual): "commit version \(actual), expected \(expected)"
            case let .duplicateType(name): "type \"\(name)\" is already defined"
            case let .invalidSchema(message): "invalid schema: \(message)"
            case let .noSuchTable(table): "no table \(table)"
            case let .undefinedType(name): "link to type \"\(name)\", which is not defined"
            case let .noSuchProperty(table, property): "table \(table) has no property \(property)"
            case let .noSuchObject(table, key): "no object \(key) in table \(table)"
            case let .keyInUse(table, key): "object \(key) already exists in table \(table)"
            case let .invalidKey(key): "object key \(key) is negative"
            case let .valueCount(expected, actual): "\(actual) values for \(expected) properties"
            case let .typeMismatch(property, value): "value \(value) does not fit property \"\(property)\""
            case let .wrongCollection(property, expected): "property \"\(property)\" is not a \(expected)"
            case let .notACollection(property): "property \"\(property)\" is not a collection"
            case let .indexOutOfRange(index, count): "index \(index) out of range for \(count) elements"
            case let .duplicatePrimaryKey(value, existing): "primary key \(value) is already used by \(existing)"
            case let .primaryKeyChange(property): "primary key \"\(property)\" cannot change"
            case let .danglingLink(table, key): "link to missing object \(key) in table \(table)"
            case let .embeddedObjectAlreadyOwned(table, key): "embedded object \(key) in table \(table) already has an owner"
            }
        }
    }

    /// The ``explanation``, or the reason prefixed with the event that failed.
    public var description: String {
        if let explanation { return explanation }
        guard let event else { return reason.description }
        let position = eventIndex.map { "event \($0) " } ?? ""
        return "\(position)\(event): \(reason)"
    }
}
