import Foundation

/// A type that can be the type of a `@Persisted` property.
///
/// Chronicle conforms the supported types for you: `Bool`, the integer
/// types, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`, `URL`,
/// `Decimal`, ``ObjectId``, ``PersistableEnum`` enums, `Optional`s of these
/// and of ``Object``/``EmbeddedObject`` subclasses, ``List``,
/// ``MutableSet``, ``Map`` and ``LinkingObjects``. Its requirements are
/// implementation details; do not conform your own types.
public protocol _PersistableProperty: Sendable {
    /// How the schema describes this type.
    static var _propertyKind: _PropertyKind { get }
    /// Converts a stored value back to Swift, for a managed object.
    static func _read(_ value: PersistedValue, in context: _ReadContext) -> Self
    /// Converts to a stored value, inside a write transaction.
    func _write(in context: _WriteContext) -> PersistedValue
    /// The value a `@Persisted var x: T` without an initial value holds.
    static func _makeDefault() -> Self
    /// What a key-path recording instance returns; `nil` uses the default.
    static func _recordingValue(_ recording: _Recording) -> Self?
    /// The stored value of a type that can be a primary key, `nil` for the
    /// others. A requirement, not a cast to `_PrimitivePersistable`: a
    /// conformance cast costs more than the whole primary-key look-up.
    var _primaryKeyValue: PersistedValue? { get }
    /// The value of `object`'s property at `ordinal`: what its `@Persisted`
    /// getter returns. A requirement, so that the getter, inlined into the
    /// app's module, calls a conversion compiled for the property's own
    /// type (see ``ObjectBase/currentValue(ordinal:)``).
    static func _get(_ object: ObjectBase, ordinal: Int) -> Self
    /// An unmanaged copy, for ``ObjectBase/init(value:)``: a collection
    /// copies its elements into a new unmanaged collection.
    func _unmanagedCopy(_ copier: _ObjectCopier) -> Self
    /// Writes the value into the uninitialised 16-byte `slot` as a stored
    /// record holds it, and returns its kind; `nil` (the default) when an
    /// unmanaged object keeps values of this type as themselves. What an
    /// unmanaged object keeps its primitive values in, so that `add` files
    /// them without converting them.
    func _initializeUnmanagedSlot(_ slot: UnsafeMutableRawPointer) -> UInt64?
    /// The value in an unmanaged object's `slot` of kind `tag`, written by
    /// ``_initializeUnmanagedSlot(_:)``; `nil` if the slot holds a value this
    /// type cannot hold.
    static func _fromUnmanagedSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> Self?
}

extension _PersistableProperty {
    /// `nil`: this type cannot be a primary key.
    public var _primaryKeyValue: PersistedValue? { nil }
    /// `nil`: an unmanaged object keeps a value of this type as itself.
    public func _initializeUnmanagedSlot(_ slot: UnsafeMutableRawPointer) -> UInt64? { nil }
    /// `nil`: values of this type are never kept in a slot.
    public static func _fromUnmanagedSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> Self? { nil }
    /// Through the generic read: collections, links and optionals need its context.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Self {
        object.readProperty(ordinal: ordinal, as: Self.self)
    }
}

/// A type that can be an element of a collection property or the wrapped
/// type of an optional property. Implementation detail; see
/// ``_PersistableProperty``.
public protocol _PersistableValue: Sendable {
    /// How the schema describes this type.
    static var _valueKind: _PropertyKind { get }
    /// Converts a stored value back to Swift; `nil` for ``PersistedValue/null``.
    static func _fromPersisted(_ value: PersistedValue, in context: _ReadContext) -> Self?
    /// Converts to a stored value, inside a write transaction.
    func _toPersisted(in context: _WriteContext) -> PersistedValue
    /// What a key-path recording instance returns for this element type.
    static func _recordingElement(_ recording: _Recording) -> Self?
    /// The element a copy holds: itself, or for an object, its copy when
    /// the copier copies it (see ``ObjectBase/init(value:)``).
    func _copyElement(_ copier: _ObjectCopier) -> Self
}

/// A type an `Optional` property or element may wrap: every
/// ``_PersistableValue`` except an optional itself, so `Int??` (which the
/// schema cannot tell from `Int?`) does not compile. Implementation detail.
public protocol _PersistableWrapped: _PersistableValue {}

/// How a Swift type maps to the schema. Implementation detail.
public struct _PropertyKind: Sendable {
    var type: PropertyType
    var objectType: ObjectBase.Type?
    var collection: CollectionKind = .none
    var isOptional = false
    var isLinkingObjects = false

    init(type: PropertyType, objectType: ObjectBase.Type? = nil, collection: CollectionKind = .none,
         isOptional: Bool = false, isLinkingObjects: Bool = false) {
        self.type = type
        self.objectType = objectType
        self.collection = collection
        self.isOptional = isOptional
        self.isLinkingObjects = isLinkingObjects
    }
}

// MARK: - Primitive values

/// A value type stored as one ``PersistedValue`` case. Implementation detail.
public protocol _PrimitivePersistable: _PersistableProperty, _PersistableWrapped, Hashable, Sendable {
    static var _primitiveType: PropertyType { get }
    var _primitive: PersistedValue { get }
    init?(_primitive: PersistedValue)
    static var _zero: Self { get }
    /// A distinctive value a key-path recording read returns, so that the
    /// recorder can tell `\.name` (the probe comes back) from
    /// `\.name.uppercased()` (something else does). `nil` when the type
    /// has no value to spare (`Bool`, enums).
    static var _probe: Self? { get }
    /// The value in a stored record's slot of kind `tag`, or `nil` if the
    /// slot holds another kind. Implementation detail: the types read most
    /// convert from the slot directly.
    static func _fromSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> Self?
    /// ``_fromSlot(_:tag:)`` of a plain integer or a short string read from
    /// a checkpoint file, as the two words a slot would hold them: an
    /// integer's bits in the first, a string as a small `String` holds
    /// it (no storage to retain). Implementation detail.
    static func _fromSlotWords(_ words: (UInt64, UInt64), tag: UInt64) -> Self?
}

extension _PrimitivePersistable {
    public static var _propertyKind: _PropertyKind { _PropertyKind(type: _primitiveType) }
    public static var _valueKind: _PropertyKind { _PropertyKind(type: _primitiveType) }
    public static func _read(_ value: PersistedValue, in context: _ReadContext) -> Self { Self(_primitive: value) ?? _zero }
    public func _write(in context: _WriteContext) -> PersistedValue { _primitive }
    public static func _makeDefault() -> Self { _zero }
    /// Implementation detail: converts the slot's value through ``PersistedValue``.
    public static func _fromSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> Self? {
        Self(_primitive: RecordStorage.load(slot, tag: tag))
    }
    /// Implementation detail: ``_fromSlot(_:tag:)`` of the words.
    public static func _fromSlotWords(_ words: (UInt64, UInt64), tag: UInt64) -> Self? {
        var words = words
        return withUnsafeBytes(of: &words) { _fromSlot($0.baseAddress.unsafelyUnwrapped, tag: tag) }
    }
    public static func _recordingValue(_ recording: _Recording) -> Self? { _recordingElement(recording) }
    /// Implementation detail: the stored value, in the slot.
    public func _initializeUnmanagedSlot(_ slot: UnsafeMutableRawPointer) -> UInt64? {
        let value = _primitive
        // A null slot marks a value kept in its entry (`UnmanagedValues`).
        guard value != .null else { return nil }
        RecordStorage.initialize(slot, with: value)
        return RecordStorage.Tag.of(value)
    }
    /// Implementation detail: ``_fromSlot(_:tag:)``.
    public static func _fromUnmanagedSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> Self? { _fromSlot(slot, tag: tag) }
    public static func _fromPersisted(_ value: PersistedValue, in context: _ReadContext) -> Self? { Self(_primitive: value) }
    public func _toPersisted(in context: _WriteContext) -> PersistedValue { _primitive }
    public static func _recordingElement(_ recording: _Recording) -> Self? {
        recording.recorder.handedOut(_probe)
        return _probe
    }
    public static var _probe: Self? { nil }
    /// The primitive value.
    public var _primaryKeyValue: PersistedValue? { _primitive }
    /// Converts without a read context, which no primitive needs.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Self { readPrimitive(object, ordinal: ordinal) }
}

/// A `@Persisted` read of a primitive type, inlined into each type's own
/// ``_PersistableProperty/_get(_:ordinal:)`` so that the conversion is
/// compiled for that type: the generic read converted through the
/// protocol's witness, after building a read context, and copied the
/// stored value out and destroyed it once more: most of the read's work.
///
/// - Complexity: that of ``ObjectBase/withCurrentValue(ordinal:_:)``.
@inline(__always)
func readPrimitive<T: _PrimitivePersistable>(_ object: ObjectBase, ordinal: Int) -> T {
    if let value = object.withCurrentValue(ordinal: ordinal, slot: { T._fromSlot($0, tag: $1) ?? T._zero },
                                           words: { T._fromSlotWords($0, tag: $1) ?? T._zero },
                                           { T(_primitive: $0.pointee) ?? T._zero }) {
        return value
    }
    return object.readProperty(ordinal: ordinal, as: T.self)
}

extension Bool: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .bool }
    public var _primitive: PersistedValue { .bool(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .bool(let v) = value else { return nil }; self = v }
    public static var _zero: Bool { false }
}

extension String: _PrimitivePersistable {
    /// Implementation detail: reads a string slot in place.
    public static func _fromSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> String? {
        tag == RecordStorage.Tag.string ? slot.load(as: String.self) : nil
    }
    /// Implementation detail: the words are a small string's, which owns
    /// no storage: moved out as they are, with nothing to retain (a copy
    /// of them, as `load` or `unsafeBitCast` makes, calls the runtime to
    /// retain the string).
    public static func _fromSlotWords(_ words: (UInt64, UInt64), tag: UInt64) -> String? {
        guard tag == RecordStorage.Tag.string else { return nil }
        var words = words
        return withUnsafeMutablePointer(to: &words) { $0.withMemoryRebound(to: String.self, capacity: 1) { $0.move() } }
    }
    /// Implementation detail: the string, in the slot.
    public func _initializeUnmanagedSlot(_ slot: UnsafeMutableRawPointer) -> UInt64? {
        slot.initializeMemory(as: String.self, repeating: self, count: 1)
        return RecordStorage.Tag.string
    }
    public static var _primitiveType: PropertyType { .string }
    public var _primitive: PersistedValue { .string(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .string(let v) = value else { return nil }; self = v }
    public static var _probe: String? { "\u{E000}chronicle-probe" }
    public static var _zero: String { "" }
}

extension Data: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .data }
    public var _primitive: PersistedValue { .data(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .data(let v) = value else { return nil }; self = v }
    public static var _probe: Data? { Data([0x5A, 0xA5, 0x5A]) }
    public static var _zero: Data { Data() }
}

extension Date: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .date }
    public var _primitive: PersistedValue { .date(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .date(let v) = value else { return nil }; self = v }
    public static var _probe: Date? { Date(timeIntervalSinceReferenceDate: 0.5772156649) }
    public static var _zero: Date { Date(timeIntervalSinceReferenceDate: 0) }
}

extension UUID: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .uuid }
    public var _primitive: PersistedValue { .uuid(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .uuid(let v) = value else { return nil }; self = v }
    public static var _probe: UUID? { UUID(uuidString: "5A5A5A5A-0000-4000-8000-00000000A5A5") }
    public static var _zero: UUID { UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }
    /// A new identifier, as `UUID()` makes (or the test generator installed
    /// with ``IdentifierGeneration/withUUIDGenerator(_:_:)``).
    public static func _makeDefault() -> UUID {
        ConstructionFrame.isMakingInternalInstance ? _zero : IdentifierGeneration.makeUUID()
    }
}

extension URL: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .url }
    public var _primitive: PersistedValue { .string(absoluteString) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) {
        guard case .string(let v) = value, let url = URL(string: v) else { return nil }
        self = url
    }
    public static var _probe: URL? { URL(string: "chronicle-probe://x") }
    public static var _zero: URL { URL(string: "about:blank")! }
}

extension Decimal: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .decimal }
    public var _primitive: PersistedValue { .decimal(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .decimal(let v) = value else { return nil }; self = v }
    public static var _probe: Decimal? { Decimal(string: "0.5772156649") }
    public static var _zero: Decimal { 0 }
}

extension ObjectId: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .objectId }
    public var _primitive: PersistedValue { .objectId(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .objectId(let v) = value else { return nil }; self = v }
    public static var _probe: ObjectId? { ObjectId("5a5a5a5a0000000000a5a5a5") }
    public static var _zero: ObjectId { ObjectId() }
    /// A new identifier from ``ObjectId/generate()``, so that a
    /// `@Persisted(primaryKey: true) var _id: ObjectId` is unique by default.
    public static func _makeDefault() -> ObjectId {
        ConstructionFrame.isMakingInternalInstance ? _zero : ObjectId.generate()
    }
}

extension Float: _PrimitivePersistable {
    public static var _primitiveType: PropertyType { .float }
    public var _primitive: PersistedValue { .float(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .float(let v) = value else { return nil }; self = v }
    public static var _probe: Float? { 0.5772156649 }
    public static var _zero: Float { 0 }
}

extension Double: _PrimitivePersistable {
    /// Implementation detail: reads a double slot in place.
    public static func _fromSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> Double? {
        tag == RecordStorage.Tag.double ? slot.load(as: Double.self) : nil
    }
    public static var _primitiveType: PropertyType { .double }
    public var _primitive: PersistedValue { .double(self) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) { guard case .double(let v) = value else { return nil }; self = v }
    public static var _probe: Double? { 0.5772156649 }
    public static var _zero: Double { 0 }
}

/// Integers all store as ``PersistedValue/int(_:)``; the schema keeps the width.
public protocol _PersistableInteger: _PrimitivePersistable, FixedWidthInteger {}

extension _PersistableInteger {
    public var _primitive: PersistedValue { .int(Int64(self)) }
    /// Implementation detail: converts a stored value back.
    public init?(_primitive value: PersistedValue) {
        guard case .int(let v) = value, let exact = Self(exactly: v) else { return nil }
        self = exact
    }
    public static var _zero: Self { 0 }
    public static var _probe: Self? { Self(truncatingIfNeeded: 0x5A5A_5A5A_5A5A_5A5A as UInt64) }
    /// Implementation detail: reads an integer slot in place.
    public static func _fromSlot(_ slot: UnsafeRawPointer, tag: UInt64) -> Self? {
        tag == RecordStorage.Tag.int ? Self(exactly: slot.load(as: Int64.self)) : nil
    }
    /// Implementation detail: the integer in the first word.
    public static func _fromSlotWords(_ words: (UInt64, UInt64), tag: UInt64) -> Self? {
        tag == RecordStorage.Tag.int ? Self(exactly: Int64(bitPattern: words.0)) : nil
    }
    /// Implementation detail: the integer, in the slot.
    public func _initializeUnmanagedSlot(_ slot: UnsafeMutableRawPointer) -> UInt64? {
        slot.storeBytes(of: Int64(self), as: Int64.self)
        return RecordStorage.Tag.int
    }
}

extension Int: _PersistableInteger { public static var _primitiveType: PropertyType { .int } }
extension Int8: _PersistableInteger { public static var _primitiveType: PropertyType { .int8 } }
extension Int16: _PersistableInteger { public static var _primitiveType: PropertyType { .int16 } }
extension Int32: _PersistableInteger { public static var _primitiveType: PropertyType { .int32 } }
extension Int64: _PersistableInteger { public static var _primitiveType: PropertyType { .int64 } }

// Each primitive type's own read, so that `readPrimitive` is specialised
// for it (the generic default above serves `PersistableEnum`s).
extension Bool {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Bool { readPrimitive(object, ordinal: ordinal) }
}
extension String {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> String { readPrimitive(object, ordinal: ordinal) }
}
extension Data {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Data { readPrimitive(object, ordinal: ordinal) }
}
extension Date {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Date { readPrimitive(object, ordinal: ordinal) }
}
extension UUID {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> UUID { readPrimitive(object, ordinal: ordinal) }
}
extension URL {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> URL { readPrimitive(object, ordinal: ordinal) }
}
extension Decimal {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Decimal { readPrimitive(object, ordinal: ordinal) }
}
extension ObjectId {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> ObjectId { readPrimitive(object, ordinal: ordinal) }
}
extension Float {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Float { readPrimitive(object, ordinal: ordinal) }
}
extension Double {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Double { readPrimitive(object, ordinal: ordinal) }
}
extension Int {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Int { readPrimitive(object, ordinal: ordinal) }
}
extension Int8 {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Int8 { readPrimitive(object, ordinal: ordinal) }
}
extension Int16 {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Int16 { readPrimitive(object, ordinal: ordinal) }
}
extension Int32 {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Int32 { readPrimitive(object, ordinal: ordinal) }
}
extension Int64 {
    /// Implementation detail: a `@Persisted` read.
    public static func _get(_ object: ObjectBase, ordinal: Int) -> Int64 { readPrimitive(object, ordinal: ordinal) }
}

// MARK: - Optional

extension Optional: _PersistableProperty where Wrapped: _PersistableWrapped {
    public static var _propertyKind: _PropertyKind {
        var kind = Wrapped._valueKind
        kind.isOptional = true
        return kind
    }
    public static func _read(_ value: PersistedValue, in context: _ReadContext) -> Self {
        Wrapped._fromPersisted(value, in: context)
    }
    public func _write(in context: _WriteContext) -> PersistedValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped._toPersisted(in: context)
        }
    }
    public static func _makeDefault() -> Self { nil }
    public static func _recordingValue(_ recording: _Recording) -> Self? {
        Wrapped._recordingElement(recording).map { .some($0) }
    }
}
