/// A type that ``Results`` can hold: a model class, or a ``Projection`` of
/// one. Implementation detail; do not conform your own types.
public protocol _ObjectProjecting: AnyObject, Sendable {
    /// The model class whose table the results read.
    static var _rootType: ObjectBase.Type { get }
    /// Wraps a managed object of ``_rootType``. `consuming`: a new handle
    /// passed here becomes the element without a retain and a release.
    static func _project(_ root: consuming ObjectBase) -> Self
    /// The object this element reads.
    var _rootObject: ObjectBase { get }
    /// The live handle this element reads, if an iteration that holds the
    /// only strong reference to the element may move it to another object
    /// by moving that handle: nothing else can reach the element or the
    /// handle. The iteration has checked that the classes store nothing
    /// else (see `Results.Iterator`). Unretained: the element keeps it
    /// (returned strong, it was retained and released on every element).
    var _relocatableRoot: Unmanaged<ObjectBase>? { get }
}

extension ObjectBase: _ObjectProjecting {
    public static var _rootType: ObjectBase.Type { self }
    public static func _project(_ root: consuming ObjectBase) -> Self {
        // Results hold handles of exactly their class: an identity check and
        // an unchecked cast instead of the runtime's dynamic cast on every
        // handle.
        if type(of: root) == self { return unsafeDowncast(consume root, to: self) }
        return root as! Self
    }
    public var _rootObject: ObjectBase { self }
    public var _relocatableRoot: Unmanaged<ObjectBase>? { isRelocatable ? Unmanaged.passUnretained(self) : nil }
}
