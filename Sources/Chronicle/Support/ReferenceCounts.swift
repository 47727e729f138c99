/// The Swift runtime's count of strong references to the object at
/// `object` (what the standard library's `_getRetainCount` reads).
///
/// Through a raw pointer, so that reading the count adds no reference of
/// its own: passing the object itself retains it for the call in
/// unoptimised code, and the count is then one too many.
@_silgen_name("swift_retainCount")
private func runtimeRetainCount(_ object: UnsafeMutableRawPointer) -> Int

extension Unmanaged {
    /// Whether exactly one strong reference holds the object: this
    /// unretained one not counted, a stored property (a projection's base
    /// object) that nothing else shares. `isKnownUniquelyReferenced` asks
    /// the same of a variable it can borrow mutably; a `let` property
    /// cannot be.
    var isHeldOnce: Bool { runtimeRetainCount(toOpaque()) == 1 }
}

/// Whether no weak or unowned reference was ever taken to `object` (the
/// runtime counts both from 1, which is none), so that moving it to
/// another object cannot surprise a reference its user still has: a weak
/// reference to a freed object reads `nil` and an unowned one traps, where
/// to a moved one both would read the other object.
func hasNoWeakOrUnownedReferences(_ object: AnyObject) -> Bool {
    _getWeakRetainCount(object) == 1 && _getUnownedRetainCount(object) == 1
}
