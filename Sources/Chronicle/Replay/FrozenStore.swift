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
