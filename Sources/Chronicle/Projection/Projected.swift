/// Declares a property of a ``Projection`` as a key path from its base
/// object. The property's type is inferred from the key path:
///
/// ```swift
/// @Projected(\Person.firstName) var firstName                       // passthrough
/// @Projected(\Person.address?.city) var homeCity                    // rename, key-path resolution
/// @Projected(\Person.lastName.localizedCapitalized.first) var initial // transformation
/// ```
///
/// Reading evaluates the key path on the base object. Setting — inside a
/// write — writes through to the base object when the key path is writable
/// (`\Person.firstName`); setting a transformed property stops with a
/// message naming it.
@propertyWrapper
public struct Projected<Root: ObjectBase, Value: Sendable>: @unchecked Sendable {
    // Safety: a key path is an immutable value; it is only applied, never
    // changed.
    @usableFromInline let keyPath: KeyPath<Root, Value>
    /// The ordinal of the persisted property of `Root` that `keyPath`
    /// passes through unchanged (`\Player.name`), or `-1` (see
    /// ``ProjectedReader``).
    @usableFromInline let directOrdinal: Int

    /// Projects the value `keyPath` reads from the base object.
    public init(_ keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
        directOrdinal = ProjectedReader.ordinal(of: keyPath) ?? -1
    }

    /// The projected value of `root`, through the ordinal of a passthrough
    /// (`directOrdinal`, read from the wrapper alone: copying the wrapper
    /// retained and released its key path around every read).
    ///
    /// A passthrough of a persisted property reads it as the base
    /// object's own property does (``_PersistableProperty/_get(_:ordinal:)``),
    /// when `root` is exactly a `Root` (a subclass numbers its properties
    /// differently); anything else applies the key path. Specialised in the
    /// app's module, the cast of `Value` and the call fold into a direct
    /// call of the value type's read.
    @inlinable static func value(of root: Root, directOrdinal: Int, keyPath: () -> KeyPath<Root, Value>) -> Value {
        if directOrdinal >= 0, type(of: root) == Root.self,
           let persistable = Value.self as? any _PersistableProperty.Type {
            func read<Property: _PersistableProperty>(_: Property.Type) -> Value {
                Property._get(root, ordinal: directOrdinal) as! Value
            }
            return read(persistable)
        }
        return root[keyPath: keyPath()]
    }

    /// Unavailable: reads and writes go through the enclosing instance.
    @available(*, unavailable, message: "@Projected can only be used on properties of Projection subclasses")
    public var wrappedValue: Value {
        get { fatalError("unavailable") }
        // swiftlint:disable:next unused_setter_value
        set { fatalError("unavailable") }
    }

    /// Routes reads and writes through the projection's base object.
    ///
    /// Inlinable, so that the app's module reads the wrapper as a stored
    /// property and calls its direct read with the types known: called
    /// unspecialised, the read looked generic metadata up each time.
    @inlinable public static subscript<EnclosingSelf: Projection<Root>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Self>
    ) -> Value {
        get {
            value(of: projection.rootObject, directOrdinal: projection[keyPath: storageKeyPath].directOrdinal,
                  keyPath: { projection[keyPath: storageKeyPath].keyPath })
        }
        set { write(newValue, to: projection, keyPath: projection[keyPath: storageKeyPath].keyPath) }
    }

    /// Sets the base object's property `keyPath` leads to, if it is writable.
    @usableFromInline static func write<EnclosingSelf: Projection<Root>>(_ newValue: Value, to projection: EnclosingSelf,
                                                                          keyPath: KeyPath<Root, Value>) {
        guard let writable = keyPath as? ReferenceWritableKeyPath<Root, Value> else {
            let described = KeyPathMapping.describe(keyPath)
            let name = ProjectionMetadata.of(EnclosingSelf.self).name(of: keyPath) ?? described
            preconditionFailure("Chronicle: \(EnclosingSelf.self).\(name) projects \(described), which is not writable (a transformation); set the base object's property instead")
        }
        projection.rootObject[keyPath: writable] = newValue
    }
}

/// Lets projection metadata read a wrapper through `Mirror` without knowing its types.
protocol ProjectedWrapper {
    var anyKeyPath: AnyKeyPath { get }
    /// Reads the projected value from a base object.
    func read(_ root: ObjectBase) -> any Sendable
}

extension Projected: ProjectedWrapper {
    var anyKeyPath: AnyKeyPath { keyPath }
    func read(_ root: ObjectBase) -> any Sendable { (root as! Root)[keyPath: keyPath] }
}
