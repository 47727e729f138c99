/// Why a query could not be built or evaluated.
public enum QueryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A filter or sort names a key path that is not a persisted property,
    /// such as a computed property. The payload is the key path's
    /// description. Chronicle refuses such queries instead of silently
    /// matching (or observing) everything.
    case unknownKeyPath(String)
    /// A sort descriptor Chronicle cannot honour exactly: one without a key
    /// path, or one with a `String.StandardComparator` (Chronicle orders
    /// strings with Swift's `<`, the order `SortDescriptor(\.name)` uses).
    case unsupportedSortDescriptor(String)
    /// A predicate force-unwrapped (`!`) a property that was `nil` for the
    /// object being tested, where `Predicate.evaluate` throws too.
    case unwrappedNil(PropertyPath)

    /// A readable description, for logs and test failures.
    public var description: String {
        switch self {
        case .unknownKeyPath(let keyPath):
            "\(keyPath) is not a persisted property, so it cannot be queried"
        case .unsupportedSortDescriptor(let descriptor):
            "cannot sort by \(descriptor): only key-path sort descriptors without a string comparator are supported"
        case .unwrappedNil(let path):
            "the predicate force-unwraps \(path), which is nil"
        }
    }
}
