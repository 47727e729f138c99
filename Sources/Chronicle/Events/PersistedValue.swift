import Foundation

/// The closed set of values a journal can hold.
///
/// Every `@Persisted` property converts to and from one of these cases; the
/// property's ``PropertySchema`` says which Swift type to convert back to
/// (an `Int8` and an `Int64` are both ``int(_:)``, a `URL` is a ``string(_:)``,
/// a `PersistableEnum` is its raw value).
public enum PersistedValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    /// A date, kept as seconds since 2001-01-01 (its exact `Double`).
    case date(Date)
    case uuid(UUID)
    case objectId(ObjectId)
    case decimal(Decimal)
    /// A to-one link or embedded object: the key of an object in the table
    /// the property's schema names.
    case link(ObjectKey)
    /// The elements of a `List`, in order.
    case list([PersistedValue])
    /// The elements of a `MutableSet`, in insertion order, without duplicates.
    case set([PersistedValue])
    /// The entries of a `Map`, sorted by key.
    case map([MapEntry])
}

/// One entry of a ``PersistedValue/map(_:)`` value.
public struct MapEntry: Hashable, Sendable {
    /// The entry's key.
    public var key: String
    /// The entry's value.
    public var value: PersistedValue
    /// An entry.
    public init(key: String, value: PersistedValue) {
        self.key = key
        self.value = value
    }
}

/// Identifies an object within its table. Keys are assigned by the writer
/// when an object is created, recorded in the ``Event/create(table:key:values:)``
/// event, and never reused.
public struct ObjectKey: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The key as a number; keys start at 1 in each table.
    public var rawValue: Int64
    /// The key with this number.
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    /// Orders values the way their sorted form compares.
    public static func < (lhs: ObjectKey, rhs: ObjectKey) -> Bool { lhs.rawValue < rhs.rawValue }
    /// A readable description, for logs and test failures.
    public var description: String { "#\(rawValue)" }
}

extension PersistedValue {
    /// A total order used by sorting and range queries. Values of different
    /// cases order by case (null first); within a case, by their natural order.
    public static func ordered(_ lhs: PersistedValue, _ rhs: PersistedValue) -> Bool {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return !a && b
        case let (.int(a), .int(b)): return a < b
        case let (.float(a), .float(b)): return a < b
        case let (.double(a), .double(b)): return a < b
        case let (.int(a), .double(b)): return Double(a) < b
        case let (.double(a), .int(b)): return a < Double(b)
        case let (.string(a), .string(b)): return a < b
        case let (.date(a), .date(b)): return a < b
        case let (.uuid(a), .uuid(b)): return a.uuidString < b.uuidString
        case let (.objectId(a), .objectId(b)): return a < b
        case let (.decimal(a), .decimal(b)): return a < b
        case let (.link(a), .link(b)): return a < b
        case let (.data(a), .data(b)): return a.lexicographicallyPrecedes(b)
        default: return lhs.caseRank < rhs.caseRank
        }
    }

    var caseRank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int, .float, .double, .decimal: 2
        case .string: 3
        case .data: 4
        case .date: 5
        case .uuid: 6
        case .objectId: 7
        case .link: 8
        case .list: 9
        case .set: 10
        case .map: 11
        }
    }

    /// Whether this is ``null``.
    public var isNull: Bool { if case .null = self { true } else { false } }
}

extension PersistedValue: CustomStringConvertible {
    /// A short, human-readable rendering used by logs and the `chronicle` tool.
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let v): "\(v)"
        case .int(let v): "\(v)"
        case .float(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .data(let v): "<\(v.count) bytes>"
        case .date(let v): v.formatted(.iso8601)
        case .uuid(let v): v.uuidString
        case .objectId(let v): "ObjectId(\(v))"
        case .decimal(let v): "\(v)"
        case .link(let key): "→\(key)"
        case .list(let v): "[" + v.map(\.description).joined(separator: ", ") + "]"
        case .set(let v): "{" + v.map(\.description).joined(separator: ", ") + "}"
        case .map(let v): "[" + v.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "]"
        }
    }
}
