import Synchronization

/// Direct reads for `@Projected` key paths that pass a persisted property
/// of the base object through unchanged (`\Player.name`): the property's
/// own read instead of applying the key path.
///
/// Applying a key path goes through the runtime's key-path machinery,
/// which costs several times the property's read itself. Each `@Projected`
/// wrapper looks its key path's ordinal up here once, when its projection
/// is made; an iteration reuses the projection it yielded last (see
/// `Results.Iterator`), so that is about once per iteration.
enum ProjectedReader {
    /// A key path's ordinal, or `nil` if it has none; the key path is
    /// kept so that the identity the cache is keyed by stays its own.
    private struct Entry: @unchecked Sendable {
        // Safety: an immutable key path and an integer.
        let keyPath: AnyKeyPath
        let ordinal: Int?
    }

    private static let cache = Locked<[ObjectIdentifier: Entry]>([:])

    /// The ordinal of the persisted property of `Root` that `keyPath`
    /// passes through unchanged, if it does: the property
    /// ``Projected/value(of:directOrdinal:keyPath:)`` then reads directly, for an object of
    /// exactly `Root` (a subclass numbers its properties differently).
    ///
    /// - Complexity: O(1) after the first call for a key path (which
    ///   records it on a recording instance).
    static func ordinal<Root: ObjectBase, Value>(of keyPath: KeyPath<Root, Value>) -> Int? {
        let id = ObjectIdentifier(keyPath)
        if let cached = cache.withLock({ $0[id] }) { return cached.ordinal }
        let ordinal = direct(keyPath)
        cache.withLock { $0[id] = Entry(keyPath: keyPath, ordinal: ordinal) }
        return ordinal
    }

    private static func direct<Root: ObjectBase, Value>(_ keyPath: KeyPath<Root, Value>) -> Int? {
        guard let recorded = try? KeyPathMapping.record(keyPath), recorded.isDirect, recorded.path.count == 1,
              let metadata = try? ClassMetadata.of(Root.self),
              let ordinal = metadata.ordinalByName[recorded.path[0]],
              !metadata.properties[ordinal].kind.isLinkingObjects,
              Value.self is any _PersistableProperty.Type else { return nil }
        return ordinal
    }
}
