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
    // changed. The direct read is an immutable `@Sendable` closure.
    @usableFromInline let keyPath: KeyPath<Root, Value>
    /// The key path's direct read, when it passes a persisted property
    /// through (see ``ProjectedReader``).
    @usableFromInline let directRead: (@Sendable (Root) -> Value?)?

    /// Projects the value `keyPath` reads from the base object.
    public init(_ keyPath: KeyPath<Root, Value>) {
        self.keyPath = keyPath
        directRead = ProjectedReader.read(keyPath)
    }

    /// The projected value of `root`.
    @inlinable func value(of root: Root) -> Value {
        if let directRead, let value = directRead(root) { return value }
        return root[keyPath: keyPath]
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
        get { projection[keyPath: storageKeyPath].value(of: projection.rootObject) }
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
