/// Makes the unmanaged copies of ``ObjectBase/init(value:)`` and
/// ``ObjectBase/detached()``. Implementation detail.
public final class _ObjectCopier {
    /// Whether linked objects (not embedded ones) are copied too, rather
    /// than linked to as they are.
    let copiesLinks: Bool
    /// The copy made of each object so far, so that an object reached
    /// twice (or through a cycle) is copied once.
    /// By identity, not instance: two handles on one managed object are one.
    private var copies: [ObjectIdentity: ObjectBase] = [:]

    init(copiesLinks: Bool) { self.copiesLinks = copiesLinks }

    /// The copy of `object` as an element of a collection or the target of
    /// a link: embedded objects are always copied (an embedded object has
    /// one parent); other objects only when ``copiesLinks``.
    func element(_ object: ObjectBase) -> ObjectBase {
        guard copiesLinks || object is EmbeddedObject else { return object }
        if let copy = copies[ObjectIdentity(object)] { return copy }
        let copy = type(of: object).init()
        fill(copy, from: object)
        return copy
    }

    /// Sets every `@Persisted` property of the unmanaged `copy` to a copy
    /// of `source`'s value.
    ///
    /// - Complexity: O(properties + elements of its collections), plus the
    ///   copies of the objects it copies.
    func fill(_ copy: ObjectBase, from source: ObjectBase) {
        copies[ObjectIdentity(source)] = copy
        let metadata = ClassMetadata.known(type(of: source))
        for (ordinal, property) in metadata.properties.enumerated() {
            guard let value = property.read(source, ordinal) as? any _PersistableProperty else { continue }
            let copied = value._unmanagedCopy(self)
            copy.unmanagedStorage.set(copied, at: ordinal)
        }
    }
}

extension _PersistableProperty {
    /// A value is its own copy.
    public func _unmanagedCopy(_ copier: _ObjectCopier) -> Self { self }
}

extension _PersistableValue {
    /// A value is its own copy.
    public func _copyElement(_ copier: _ObjectCopier) -> Self { self }
}

extension ObjectBase {
    /// The linked object, or its copy; see ``_ObjectCopier``.
    public func _copyElement(_ copier: _ObjectCopier) -> Self {
        copier.element(self) as! Self
    }
}

extension Optional {
    /// The wrapped value's copy.
    public func _unmanagedCopy(_ copier: _ObjectCopier) -> Self where Wrapped: _PersistableWrapped {
        map { $0._copyElement(copier) }
    }

    /// The wrapped value's copy.
    public func _copyElement(_ copier: _ObjectCopier) -> Self where Wrapped: _PersistableWrapped {
        map { $0._copyElement(copier) }
    }
}

extension List {
    /// A new unmanaged list of the elements' copies.
    public func _unmanagedCopy(_ copier: _ObjectCopier) -> List<Element> {
        let copy = List()
        copy.append(contentsOf: snapshot.map { $0._copyElement(copier) })
        return copy
    }
}

extension MutableSet {
    /// A new unmanaged set of the elements' copies.
    public func _unmanagedCopy(_ copier: _ObjectCopier) -> MutableSet<Element> {
        let copy = MutableSet()
        for element in snapshot { copy.insert(element._copyElement(copier)) }
        return copy
    }
}

extension Map {
    /// A new unmanaged map of the values' copies.
    public func _unmanagedCopy(_ copier: _ObjectCopier) -> Map<Key, Value> {
        Map(unmanaged: snapshot.map { ($0.key, $0.value._copyElement(copier)) })
    }
}

extension LinkingObjects {
    /// Unmanaged: an unmanaged object has no objects linking to it.
    public func _unmanagedCopy(_ copier: _ObjectCopier) -> LinkingObjects<Element> {
        LinkingObjects(unmanagedOriginProperty: propertyName)
    }
}

extension ObjectBase {
    /// An unmanaged copy of `value`'s persisted properties, the Realm SDK's
    /// `init(value:)`: `Dog(value: rex)`.
    ///
    /// Use it to put an object of one store into another (adding a managed
    /// object to another store stops the program), or to edit a copy
    /// outside a write. The copy has `value`'s primary key. As in the Realm
    /// SDK, a link (to-one, or in a list, set or map) points at the same
    /// object `value` links to, and embedded objects are copied with their
    /// parent; ``detached()`` copies linked objects too.
    ///
    /// ```swift
    /// let copy = Dog(value: rexFromStoreA)
    /// try storeB.write { storeB.add(copy) }
    /// ```
    ///
    /// - Complexity: O(properties + elements of its collections + embedded objects).
    /// - Precondition: `value` is of this class, and is not a deleted object.
    public convenience init(value: ObjectBase) {
        self.init()
        precondition(type(of: value) == type(of: self),
                     "Chronicle: \(ClassMetadata.typeName(type(of: self)))(value:) copies a \(ClassMetadata.typeName(type(of: self))), not a \(ClassMetadata.typeName(type(of: value)))")
        _ObjectCopier(copiesLinks: false).fill(self, from: value)
    }

    /// An unmanaged copy of this object and of every object it reaches
    /// through links, embedded or not: the whole graph, each object copied
    /// once (cycles included). Add it to another store to copy the graph
    /// there; objects with primary keys keep them.
    ///
    /// - Complexity: O(the objects reachable from this one and their properties).
    public func detached() -> Self {
        _ObjectCopier(copiesLinks: true).element(self) as! Self
    }

    /// The store a managed object belongs to; `nil` for an unmanaged one.
    /// (The Realm SDK's `realm`.)
    public var store: Store? { location?.table.store }
}
