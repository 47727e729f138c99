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

extension PersistedValue {
    /// Value identity, as the store needs it: like the cases' own `==`,
    /// except that a NaN equals a NaN (of the same case).
    ///
    /// With IEEE equality a NaN would never equal itself, so a secondary
    /// index could never find (and remove) the entry of an object whose
    /// indexed `Double` is NaN, a `MutableSet` could hold any number of NaNs
    /// and never remove one, and setting NaN over NaN would count as a
    /// change. Queries are unaffected: they compare with Swift's semantics
    /// (`NaN == NaN` is false in a predicate).
    public static func == (lhs: PersistedValue, rhs: PersistedValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.float(a), .float(b)): a == b || (a.isNaN && b.isNaN)
        case let (.double(a), .double(b)): a == b || (a.isNaN && b.isNaN)
        case let (.string(a), .string(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)):
            a == b || (a.timeIntervalSinceReferenceDate.isNaN && b.timeIntervalSinceReferenceDate.isNaN)
        case let (.uuid(a), .uuid(b)): a == b
        case let (.objectId(a), .objectId(b)): a == b
        case let (.decimal(a), .decimal(b)): a == b || (a.isNaN && b.isNaN)
        case let (.link(a), .link(b)): a == b
        case let (.list(a), .list(b)): a == b
        case let (.set(a), .set(b)): a == b
        case let (.map(a), .map(b)): a == b
        default: false
        }
    }

    /// Consistent with ``==(_:_:)``: every NaN of a case hashes alike.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(1); hasher.combine(v)
        case .int(let v): hasher.combine(2); hasher.combine(v)
        case .float(let v): hasher.combine(3); if v.isNaN { hasher.combine(Float.nan.bitPattern) } else { hasher.combine(v) }
        case .double(let v): hasher.combine(4); if v.isNaN { hasher.combine(Double.nan.bitPattern) } else { hasher.combine(v) }
        case .string(let v): hasher.combine(5); hasher.combine(v)
        case .data(let v): hasher.combine(6); hasher.combine(v)
        case .date(let v):
            hasher.combine(7)
            let t = v.timeIntervalSinceReferenceDate
            if t.isNaN { hasher.combine(Double.nan.bitPattern) } else { hasher.combine(t) }
        case .uuid(let v): hasher.combine(8); hasher.combine(v)
        case .objectId(let v): hasher.combine(9); hasher.combine(v)
        case .decimal(let v): hasher.combine(10); if v.isNaN { hasher.combine(Double.nan.bitPattern) } else { hasher.combine(v) }
        case .link(let v): hasher.combine(11); hasher.combine(v)
        case .list(let v): hasher.combine(12); hasher.combine(v)
        case .set(let v): hasher.combine(13); hasher.combine(v)
        case .map(let v): hasher.combine(14); hasher.combine(v)
        }
    }
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
