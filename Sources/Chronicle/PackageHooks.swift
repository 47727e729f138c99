import Foundation

// Hooks for ChronicleTesting, the package's test-support library. `package`
// access: visible to the package's own modules, not part of the public API.

extension ObjectBase {
    /// The store, table index and key of a managed object; `nil` when unmanaged.
    package var packageAddress: (store: Store, table: Int, key: ObjectKey)? {
        guard let location else { return nil }
        return (location.table.store, location.table.index, location.key)
    }
}

extension Store {
    /// The last committed state (never a write in progress).
    package var packageCommittedState: StoreState { committedState() }
}

/// Key-path mapping and identifier generation for ChronicleTesting.
package enum PackageHooks {
    /// The persisted property path a key path rooted at a model class reads,
    /// e.g. `["address", "city"]`.
    package static func propertyPath(of keyPath: AnyKeyPath) throws(UnpersistedKeyPathError) -> [String] {
        try KeyPathMapping.record(keyPath).path
    }

    /// Runs `body` with `uuid` and `objectId` generating the identifiers the
    /// current task creates (the async form of
    /// ``IdentifierGeneration/withUUIDGenerator(_:_:)`` and
    /// ``IdentifierGeneration/withObjectIdGenerator(_:_:)``).
    package static func withIdentifierGenerators<R>(
        uuid: @escaping @Sendable () -> UUID, objectId: @escaping @Sendable () -> ObjectId,
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R
    ) async rethrows -> R {
        try await IdentifierGeneration.$uuid.withValue(IdentifierGeneration.Generator(make: uuid)) {
            try await ObjectIdGeneration.$override.withValue(ObjectIdGeneration.Override(value: objectId)) {
                try await body()
            }
        }
    }
}
