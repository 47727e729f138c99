/// A view model over a live object: a chosen subset of its properties,
/// passed through, renamed, reached through key paths, transformed, or
/// mapped from a collection.
///
/// ```swift
/// final class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
/// }
/// extension PersonProjection: @unchecked Sendable {}
///
/// let people = store.objects(PersonProjection.self)
/// ```
///
/// Each projected property is a pure function of the base object, so a
/// projection is as live as its base. Properties of the base that are not
/// projected are invisible through it, and changing them does not notify
/// the projection's observers.
///
/// - Complexity: Building a projection is O(1): it holds its base object;
///   what it projects is worked out once per projection type.
open class Projection<Root: ObjectBase>: @unchecked Sendable {
    // Safety: the only stored property is an immutable reference to a
    // Sendable object.

    /// The object this projection reads.
    public let rootObject: Root

    /// A projection of `object`, managed or not.
    public required init(projecting object: Root) {
        rootObject = object
    }

    /// Whether the base object was deleted.
    public var isInvalidated: Bool { rootObject.isInvalidated }
    /// Whether the base object is frozen.
    public var isFrozen: Bool { rootObject.isFrozen }
}

extension Projection {
    /// The base object, unretained: its reference count read as it is.
    private var unretainedRoot: Unmanaged<Root> { Unmanaged.passUnretained(rootObject) }
}

extension Projection: _ObjectProjecting {
    public static var _rootType: ObjectBase.Type { Root.self }
    public static func _project(_ root: consuming ObjectBase) -> Self {
        guard let root = root as? Root else {
            preconditionFailure("Chronicle: a \(Self.self) projects \(Root.self), not \(type(of: root))")
        }
        return Self(projecting: root)
    }
    public var _rootObject: ObjectBase { rootObject }
    public var _relocatableRoot: Unmanaged<ObjectBase>? {
        // The projection alone holds its base handle (the runtime's count
        // of strong references is 1), no weak or unowned reference was ever
        // taken to either (as for a handle; see `ObjectBase.isRelocatable`),
        // and the handle is live and unbound.
        guard hasNoWeakOrUnownedReferences(self), unretainedRoot.isHeldOnceAndNeverWeaklyOrUnownedReferenced,
              rootObject.isUnboundLiveHandle else { return nil }
        return Unmanaged.passUnretained(rootObject)
    }
}

extension Projection: Hashable {
    /// Projections are equal when their base objects are.
    public static func == (lhs: Projection, rhs: Projection) -> Bool { lhs.rootObject == rhs.rootObject }
    /// Hashes the identity that `==` compares.
    public func hash(into hasher: inout Hasher) { hasher.combine(rootObject) }
}
