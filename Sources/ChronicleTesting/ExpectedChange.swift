import Chronicle

/// One change a block is expected to commit; see
/// ``expectCommit(in:changes:sourceLocation:_:)-(_,_,_,()throws->R)``.
///
/// ```swift
/// try expectCommit(in: store, changes: [
///     .set(person, \.firstName, to: "Bob"),
///     .deleted(dog),
/// ]) {
///     try store.write {
///         person.firstName = "Bob"
///         store.delete(dog)
///     }
/// }
/// ```
public struct ExpectedChange: CustomStringConvertible {
    enum Kind {
        /// A property of the object changed; `matches` reads it after the block.
        case set(path: [String], keyPath: String, expected: String, matches: () -> Bool)
        case created
        case deleted
    }

    let object: ObjectBase
    /// Where the object was when the expectation was made (it may be
    /// unmanaged then and added by the block).
    let addressBefore: (store: Store, table: Int, key: ObjectKey)?
    let kind: Kind

    private init(object: ObjectBase, kind: Kind) {
        self.object = object
        addressBefore = object.packageAddress
        self.kind = kind
    }

    /// The block sets `keyPath` of `object` to `value`: the commits changed
    /// that property, and reading it afterwards gives `value`.
    ///
    /// `keyPath` names a persisted property of `object` itself (for a
    /// property of an embedded or linked object, name that object). For an
    /// object the block creates, the expectation checks the value it was
    /// created with (list it with ``created(_:)`` too).
    public static func set<Root: ObjectBase, Value: Equatable>(_ object: Root, _ keyPath: KeyPath<Root, Value>,
                                                               to value: Value) -> ExpectedChange {
        let path = (try? PackageHooks.propertyPath(of: keyPath)) ?? []
        return ExpectedChange(object: object, kind: .set(path: path, keyPath: "\(keyPath)", expected: ValueText.swift(value),
                                                         matches: { object[keyPath: keyPath] == value }))
    }

    /// The block creates `object` (adds it to the store). Embedded objects
    /// are created and deleted with their parent and need not be listed.
    public static func created(_ object: ObjectBase) -> ExpectedChange {
        ExpectedChange(object: object, kind: .created)
    }

    /// The block deletes `object`.
    public static func deleted(_ object: ObjectBase) -> ExpectedChange {
        ExpectedChange(object: object, kind: .deleted)
    }

    /// The expectation in words, e.g. `Person.firstName = "Bob"`.
    public var description: String {
        let type = String(describing: Swift.type(of: object))
        switch kind {
        case .set(let path, let keyPath, let expected, _):
            return "\(type).\(path.isEmpty ? keyPath : path.joined(separator: ".")) = \(expected)"
        case .created: return "created \(type)"
        case .deleted: return "deleted \(type)"
        }
    }
}
