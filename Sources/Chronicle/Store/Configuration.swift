import Foundation

extension Store {
    /// Where a store keeps its journal and how it opens it.
    public struct Configuration: Sendable {
        /// The journal file; `nil` for an in-memory store.
        public var fileURL: URL?
        /// A name for an in-memory store (shown in diagnostics). Each
        /// in-memory store is independent, even when two share a name.
        public var inMemoryIdentifier: String?
        /// When a commit reaches stable storage. See ``Durability``.
        public var durability: Durability
        /// The model classes to check against the journal when the store
        /// opens. Types linked from them are included. Types not listed are
        /// registered the first time a write uses them.
        public var objectTypes: [ObjectBase.Type]?
        /// The clock that timestamps commits; tests inject a fixed one.
        public var clock: @Sendable () -> Date
        /// When the store keeps checkpoints, in memory and next to the journal.
        public var checkpoints: CheckpointPolicy = .default
        /// The version of the app's schema. Raise it (by one, say) with each
        /// release whose model classes change in a way that needs a
        /// ``migration`` (anything but a new type or an added property).
        /// Opening a journal of a lower version runs the migration once; a
        /// journal of a higher version (written by a newer app) does not
        /// open. See <doc:EvolvingYourSchema>.
        public var schemaVersion: UInt64 = 0
        /// Runs once when the store opens a journal whose schema version is
        /// lower than ``schemaVersion``, inside the one commit that records
        /// the migration; it receives the journal's old schema version. The
        /// classes of ``objectTypes`` are the new schema. Throwing leaves
        /// the store unopened and the journal unchanged.
        public var migration: (@Sendable (Migration, _ oldSchemaVersion: UInt64) throws -> Void)?

        /// A store whose journal is the file at `fileURL`.
        public init(fileURL: URL, durability: Durability = .full, objectTypes: [ObjectBase.Type]? = nil,
                    clock: @escaping @Sendable () -> Date = { Date() }) {
            self.fileURL = fileURL
            self.durability = durability
            self.objectTypes = objectTypes
            self.clock = clock
        }

        /// A store whose journal lives in memory, for tests and scratch work.
        public static func inMemory(identifier: String = "default", objectTypes: [ObjectBase.Type]? = nil,
                                    clock: @escaping @Sendable () -> Date = { Date() }) -> Configuration {
            var configuration = Configuration(fileURL: URL(fileURLWithPath: "/dev/null"), durability: .none,
                                              objectTypes: objectTypes, clock: clock)
            configuration.fileURL = nil
            configuration.inMemoryIdentifier = identifier
            return configuration
        }
    }

    /// What ``Store/add(_:update:)-(ObjectBase,_)`` does when an object with the same
    /// primary key exists.
    public enum UpdatePolicy: Sendable {
        /// Reject the write: the transaction throws ``StoreError/rejected(_:)``.
        case error
        /// Update the existing object, writing only the properties whose values differ.
        case modified
        /// Update the existing object, writing every property.
        case all
    }
}
