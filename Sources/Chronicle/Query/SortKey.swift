import Foundation

/// One level of a sort: a persisted property and a direction.
struct SortKey: Hashable, Sendable {
    /// The property to sort by.
    var path: PropertyPath
    /// `true` for ascending order (nil first), `false` for descending (nil
    /// last).
    var ascending: Bool

    init(_ path: PropertyPath, ascending: Bool = true) {
        self.path = path
        self.ascending = ascending
    }

    /// The sort keys for `descriptors`, most significant first, mapping each
    /// descriptor's key path with `resolver` (which receives whole composed
    /// key paths such as `\Person.address?.city`).
    ///
    /// - Throws: ``QueryError/unknownKeyPath(_:)`` for a key path that is
    ///   not persisted; ``QueryError/unsupportedSortDescriptor(_:)`` for a
    ///   descriptor without a key path or with a `String.StandardComparator`
    ///   (Chronicle orders strings with Swift's `<`, as
    ///   `SortDescriptor(\.name)` does).
    /// - Complexity: O(n) in the number of descriptors, plus the resolver.
    static func keys<Root>(for descriptors: [SortDescriptor<Root>],
                           resolver: KeyPathResolver) throws -> [SortKey] {
        try descriptors.map { descriptor in
            guard let keyPath = descriptor.keyPath, descriptor.stringComparator == nil else {
                throw QueryError.unsupportedSortDescriptor(String(describing: descriptor))
            }
            guard let path = try resolver(keyPath) else {
                throw QueryError.unknownKeyPath(KeyPathMapping.describe(keyPath))
            }
            return SortKey(path, ascending: descriptor.order == .forward)
        }
    }

    /// Whether `lhs` sorts before `rhs` under `keys`: the first key whose
    /// values differ decides, by ``PersistedValue/ordered(_:_:)`` (`nil` and
    /// a broken path first when ascending). Rows equal under every key are
    /// not ordered, so a stable sort keeps their order.
    ///
    /// - Complexity: O(k) in the number of keys, times the cost of
    ///   ``QueryRow/value(at:)`` and of comparing two values.
    static func areInIncreasingOrder(_ lhs: some QueryRow, _ rhs: some QueryRow, by keys: [SortKey]) -> Bool {
        for key in keys {
            let a = lhs.value(at: key.path) ?? .null
            let b = rhs.value(at: key.path) ?? .null
            if PersistedValue.ordered(a, b) { return key.ascending }
            if PersistedValue.ordered(b, a) { return !key.ascending }
        }
        return false
    }
}
