import Synchronization

/// Direct reads for `@Projected` key paths that pass a persisted property
/// of the base object through unchanged (`\Player.name`): a call of the
/// property's own read instead of applying the key path.
///
/// Applying a key path goes through the runtime's key-path machinery,
/// which costs several times the property's read itself. Each `@Projected`
/// wrapper looks its key path up here once, when its projection is made;
/// an iteration reuses the projection it yielded last (see
/// `Results.Iterator`), so that is about once per iteration.
enum ProjectedReader {
    /// A key path's direct read, or `nil` if it has none; the key path is
    /// kept so that the identity the cache is keyed by stays its own.
    private struct Entry: @unchecked Sendable {
        // Safety: a key path and a `@Sendable` closure, both immutable.
        let keyPath: AnyKeyPath
        let read: Any?
    }

    private static let cache = Locked<[ObjectIdentifier: Entry]>([:])

    /// The direct read of `keyPath`, if it passes a persisted property of
    /// `Root` through unchanged. The read answers only for an object of
    /// exactly `Root` (a subclass numbers its properties differently) and
    /// returns `nil` for any other: the caller then applies the key path.
    ///
    /// - Complexity: O(1) after the first call for a key path (which
    ///   records it on a recording instance).
    static func read<Root: ObjectBase, Value>(_ keyPath: KeyPath<Root, Value>) -> (@Sendable (Root) -> Value?)? {
        let id = ObjectIdentifier(keyPath)
        if let cached = cache.withLock({ $0[id] }) { return cached.read as? @Sendable (Root) -> Value? }
        let read = direct(keyPath)
        cache.withLock { $0[id] = Entry(keyPath: keyPath, read: read) }
        return read
    }

    private static func direct<Root: ObjectBase, Value>(_ keyPath: KeyPath<Root, Value>) -> (@Sendable (Root) -> Value?)? {
        guard let recorded = try? KeyPathMapping.record(keyPath), recorded.isDirect, recorded.path.count == 1,
              let metadata = try? ClassMetadata.of(Root.self),
              let ordinal = metadata.ordinalByName[recorded.path[0]],
              !metadata.properties[ordinal].kind.isLinkingObjects,
              let persistable = Value.self as? any _PersistableProperty.Type else { return nil }
        func read<P: _PersistableProperty>(_: P.Type) -> Any {
            { @Sendable (root: Root) -> P? in type(of: root) == Root.self ? P._get(root, ordinal: ordinal) : nil }
        }
        return read(persistable) as? @Sendable (Root) -> Value?
    }
}
