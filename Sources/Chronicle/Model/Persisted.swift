/// Declares a persisted property of an ``Object`` or ``EmbeddedObject``.
///
/// ```swift
/// final class Person: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var firstName = ""
///     @Persisted(indexed: true) var age = 0
///     @Persisted var address: Address?
///     @Persisted var dogs: List<Dog>
/// }
/// ```
///
/// On an unmanaged object the value lives in the instance. On a managed
/// object a read goes to the store's current state (or, inside a write, to
/// that write's own changes) and a write — allowed only inside
/// `store.write { }` — becomes a journal event.
///
/// Computed properties and stored properties without `@Persisted` are not
/// persisted.
///
/// - Complexity: Reading a managed property is O(log₆₄ *n*) in the number of
///   objects of its type; setting one is the same plus the event.
@propertyWrapper
public struct Persisted<Value: _PersistableProperty>: Sendable {
    /// This wrapper's position among the object's `@Persisted` properties.
    @usableFromInline let ordinal: Int

    // The initialisers are inlinable, so that a model class's `init` (in
    // the app's module) calls one small non-generic function per property
    // when Chronicle makes a managed handle, instead of an unspecialised
    // generic one per property, which was most of the cost of making a
    // handle.

    /// A property whose initial value is its type's default
    /// (`0`, `""`, `nil`, an empty collection…).
    @inlinable public init() {
        ordinal = Self.ordinal(primaryKey: false, indexed: false)
    }

    /// A property with an initial value: `@Persisted var name = "Fido"`.
    @inlinable public init(wrappedValue: Value) {
        ordinal = Self.ordinal(wrappedValue, primaryKey: false, indexed: false)
    }

    /// A primary-key (or, with `false`, an ordinary) property. Primary keys
    /// may be `Int`, `String`, `UUID` or ``ObjectId``; a type has at most one.
    @inlinable public init(primaryKey: Bool) {
        ordinal = Self.ordinal(primaryKey: primaryKey, indexed: false)
    }

    /// A primary-key property with an initial value.
    @inlinable public init(wrappedValue: Value, primaryKey: Bool) {
        ordinal = Self.ordinal(wrappedValue, primaryKey: primaryKey, indexed: false)
    }

    /// An indexed property: equality queries on it use an index instead of a scan.
    @inlinable public init(indexed: Bool) {
        ordinal = Self.ordinal(primaryKey: false, indexed: indexed)
    }

    /// An indexed property with an initial value.
    @inlinable public init(wrappedValue: Value, indexed: Bool) {
        ordinal = Self.ordinal(wrappedValue, primaryKey: false, indexed: indexed)
    }

    /// The ordinal of a wrapper whose initial value is its type's default:
    /// counted when a handle is being made, else registered with the default.
    @inlinable static func ordinal(primaryKey: Bool, indexed: Bool) -> Int {
        let ordinal = constructionHandleOrdinal()
        return ordinal >= 0 ? ordinal : ConstructionFrame.registerDefault(Value.self, primaryKey: primaryKey, indexed: indexed)
    }

    /// The ordinal of a wrapper with an initial value: counted when a
    /// handle is being made, else registered with `initial`.
    @inlinable static func ordinal(_ initial: Value, primaryKey: Bool, indexed: Bool) -> Int {
        let ordinal = constructionHandleOrdinal()
        return ordinal >= 0 ? ordinal : ConstructionFrame.register(initial, primaryKey: primaryKey, indexed: indexed)
    }

    /// Unavailable: reads and writes go through the enclosing instance.
    @available(*, unavailable, message: "@Persisted can only be used on properties of Object and EmbeddedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("unavailable") }
    }

    /// Routes reads and writes through the enclosing object.
    public static subscript<EnclosingSelf: ObjectBase>(
        _enclosingInstance object: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get { Value._get(object, ordinal: object[keyPath: storageKeyPath].ordinal) }
        set { object.writeProperty(ordinal: object[keyPath: storageKeyPath].ordinal, newValue) }
    }
}

extension Persisted {
    /// An inverse relationship: the objects whose `originProperty` links here.
    ///
    /// ```swift
    /// @Persisted(originProperty: "dogs") var person: LinkingObjects<Person>
    /// ```
    public init<Origin: Object>(originProperty: String) where Value == LinkingObjects<Origin> {
        ordinal = ConstructionFrame.register(LinkingObjects<Origin>(unmanagedOriginProperty: originProperty),
                                             options: PersistedOptions(originProperty: originProperty))
    }
}

/// Lets schema discovery read a wrapper through `Mirror` without knowing its `Value`.
protocol PersistedWrapper: SendableMetatype {
    var ordinal: Int { get }
    static var kind: _PropertyKind { get }
    /// Reads property `ordinal` of an object as this wrapper's `Value`.
    static var reader: @Sendable (ObjectBase, Int) -> any Sendable { get }
    /// Converts a stored value of the property to this wrapper's `Value`,
    /// as a read of an object whose record holds it does.
    static var converter: @Sendable (PersistedValue, _ReadContext) -> any Sendable { get }
}

extension Persisted: PersistedWrapper {
    static var kind: _PropertyKind { Value._propertyKind }
    static var reader: @Sendable (ObjectBase, Int) -> any Sendable {
        { object, ordinal in object.readProperty(ordinal: ordinal, as: Value.self) }
    }
    static var converter: @Sendable (PersistedValue, _ReadContext) -> any Sendable {
        { value, context in Value._read(value, in: context) }
    }
}
