/// The persisted property names a key path walks, from the queried type
/// outwards: `\Person.address?.city` is `["address", "city"]`.
///
/// Queries, sort keys and observation name properties this way, so that
/// they never depend on Swift key paths once translated. Its description is
/// the dot-joined form, `address.city`.
public struct PropertyPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByArrayLiteral {
    /// The property names, outermost first.
    public var components: [String]

    /// A path through `components`, outermost first.
    public init(_ components: [String]) {
        self.components = components
    }

    /// A path through the listed property names, outermost first.
    public init(arrayLiteral components: String...) {
        self.components = components
    }

    /// The empty path, which names the queried object itself.
    public static let root = PropertyPath([])

    /// This path followed by `other`. O(n + m) in the two lengths.
    public func appending(_ other: PropertyPath) -> PropertyPath {
        PropertyPath(components + other.components)
    }

    /// The dot-joined property names, e.g. `address.city`. O(n).
    public var description: String {
        components.joined(separator: ".")
    }
}
