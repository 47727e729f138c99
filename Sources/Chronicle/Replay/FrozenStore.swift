import Foundation

/// A read-only view of a store at one version: every read sees the state the
/// store had right after that commit, and it never changes.
///
/// Make one with ``Store/frozen(at:)-(UInt64)`` or ``Store/frozen(at:)-(Date)``.
/// Its results, objects, queries and projections are frozen (``Results/isFrozen``
/// is `true`): they can be read from any task, and cannot be written or observed.
///
/// ```swift
/// let past = try store.frozen(at: 42)
/// let adults = past.objects(Person.self).filter(#Predicate { $0.age >= 18 })
/// print(adults.count, past.label ?? "")
/// ```
public struct FrozenStore: Sendable {
    /// The store this is a view of.
    public let store: Store
    /// The folded state at ``version``.
    public let state: StoreState
    /// When the commit of ``version`` was made; `nil` at version 0.
    public let timestamp: Date?
    /// The label of the commit of ``version``, if it had one.
    public let label: String?

    /// The version this view shows (0: before the first commit).
    public var version: UInt64 { state.version }

    /// All objects of a type at this version, as frozen ``Results``
    /// (filter, sort and project them as usual).
    public func objects<Element: _ObjectProjecting>(_ type: Element.Type) -> Results<Element> {
        Results(store: store, frozen: state)
    }

    /// The object of `type` whose primary key was `key` at this version, frozen; or `nil`.
    /// - Complexity: O(1) expected.
    public func object<Element: Object, KeyType: _PersistableProperty>(ofType type: Element.Type,
                                                                       forPrimaryKey key: KeyType) -> Element? {
        store.object(ofType: type, forPrimaryKey: key, in: state, frozen: state)
    }

    // MARK: Reading without the model classes

    /// Throws unless `type` can read this version.
    ///
    /// A version before a migration was written with the schema of its
    /// time. Today's class reads it by property name where the two agree:
    /// a property the migration removed since is not read, one it added
    /// reads its declared default. Where the class declares a property
    /// otherwise than this version does (another type, or a name a
    /// migration gave it since), or its type had another name then,
    /// reading through the class would give wrong values, and ``objects(_:)`` stops the program instead. This
    /// says so beforehand.
    ///
    /// - Throws: ``StoreError/schema(_:)`` with
    ///   ``SchemaError/unreadableVersion(type:version:differences:)`` (at an
    ///   older version) or ``SchemaError/mismatch(type:differences:)``
    ///   naming the type and each property that differs.
    /// - Complexity: O(properties of the class and the types it links to).
    public func checkReadable(_ type: ObjectBase.Type) throws(StoreError) {
        let metadata: ClassMetadata
        do { metadata = try ClassMetadata.of(type) } catch { throw .schema(error) }
        if let problem = store.madeBindings.withLock({ store.readProblem(metadata, in: state, made: $0) }) {
            throw .schema(problem)
        }
    }

    /// Every object of the type named `typeName` as it was at this
    /// version, with its values by property name — readable whatever the
    /// model classes declare now. `nil` when the type did not exist then.
    ///
    /// ```swift
    /// let past = try store.frozen(at: 12)          // before `age` became a Double
    /// for pet in past.objects(ofType: "Pet") ?? [] {
    ///     print(pet["name"] ?? .null, pet["age"] ?? .null)   // .int(3)
    /// }
    /// ```
    ///
    /// - Complexity: O(objects of the type).
    public func objects(ofType typeName: String) -> [ObjectSnapshot]? {
        guard let table = state.tableIndex(named: typeName) else { return nil }
        return state.objects(table: table).map { key, record in state.snapshot(TableKey(table: table, key: key), record) }
    }

    /// The object of the type named `typeName` whose primary key was `key`
    /// at this version, with its values by property name; `nil` if there
    /// was none (or the type had no primary key then).
    /// - Complexity: O(1) expected.
    public func object(ofType typeName: String, forPrimaryKey key: PersistedValue) -> ObjectSnapshot? {
        guard let table = state.tableIndex(named: typeName), let found = state.key(table: table, primaryKey: key),
              let record = state.object(table: table, key: found) else { return nil }
        return state.snapshot(TableKey(table: table, key: found), record)
    }
}

extension ObjectSnapshot {
    /// The value of the property named `name`, or `nil` if the object's
    /// type had no such property.
    public subscript(name: String) -> PersistedValue? {
        values.first { $0.name == name }?.value
    }
}

extension Store {
    /// A frozen, read-only view of the store as it was right after commit `version`.
    ///
    /// Version 0 is the empty store; ``version`` is the current one.
    ///
    /// - Throws: ``StoreError/versionOutOfRange(requested:available:)`` for a
    ///   version the store does not have yet; ``StoreError/journal(_:)`` if the
    ///   journal cannot be read.
    /// - Complexity: O(events since the nearest checkpoint at or before
    ///   `version`): at most about ``CheckpointPolicy/interval`` events once the
    ///   store has folded that far (a version below a checkpoint file that the
    ///   store opened from is folded from the start once, leaving checkpoints).
    public func frozen(at version: UInt64) throws(StoreError) -> FrozenStore {
        let state = try state(at: version)
        let commit = version > 0 ? try timeTravel.commit(at: version) : nil
        return FrozenStore(store: self, state: state, timestamp: commit?.timestamp, label: commit?.label)
    }

    /// A frozen view of the store at the last version committed at or before
    /// `date` (version 0 if the first commit is later).
    ///
    /// - Complexity: O(log n) commit reads to find the version, then as
    ///   ``frozen(at:)-(UInt64)``.
    public func frozen(at date: Date) throws(StoreError) -> FrozenStore {
        try frozen(at: timeTravel.lastVersion(atOrBefore: date, through: committedState().version))
    }
}
