import Synchronization

/// A dictionary from `String` keys to persisted values, declared as
/// `@Persisted var scores: Map<String, Int>`.
///
/// Entries are kept sorted by key. A managed map is live and changes only
/// inside a write; each change is a map event in the journal. A map is a
/// `RandomAccessCollection` (and a ``LiveCollection``) of
/// `(key: String, value: Value)` pairs in key order:
///
/// ```swift
/// for (name, score) in player.scores { print(name, score) }
/// ```
///
/// Values may be optional (`Map<String, Int?>`); in a map of optional
/// objects (`Map<String, Dog?>`, as the Realm SDK requires), deleting a
/// value's object leaves its key, with `nil` for the value.
public final class Map<Key: _MapKey, Value: _PersistableValue>: @unchecked Sendable {
    // Safety: as for List — immutable references when managed, a mutex when not.
    let storage: CollectionStorage<[String: Value]>

    /// An empty, unmanaged map.
    public init() {
        storage = .unmanaged(Locked([:]))
    }

    init(owner: CollectionOwner) {
        storage = .managed(owner)
    }

    /// An unmanaged map holding `entries`.
    init(unmanaged entries: [(key: String, value: Value)]) {
        storage = .unmanaged(Locked(Dictionary(entries, uniquingKeysWith: { $1 })))
    }

    /// Whether the map belongs to a store.
    public var isManaged: Bool { owner != nil }
    /// Whether the map is pinned to one version and never changes.
    public var isFrozen: Bool { owner?.frozen != nil }

    /// The entries, sorted by key, read once from one state. An entry
    /// whose value does not read as `Value` — in a `Map<String, Dog>`, one
    /// whose dog was deleted, which the store keeps as a null value — is
    /// left out; declare `Map<String, Dog?>` to see it as `nil`.
    var snapshot: [(key: String, value: Value)] {
        storage.read(managed: { owner in
            let state = owner.state()
            let context = owner.readContext(state)
            guard case .map(let stored)? = owner.value(in: state) else { return [] }
            return stored.compactMap { entry in Value._fromPersisted(entry.value, in: context).map { (entry.key, $0) } }
        }, unmanaged: { $0.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } })
    }

    /// The number of entries.
    public var count: Int { snapshot.count }
    /// The keys, sorted.
    public var keys: [String] { snapshot.map(\.key) }
    /// The values, in key order.
    public var values: [Value] { snapshot.map(\.value) }

    /// The value for `key`; setting `nil` removes the entry (inside a write).
    public subscript(key: Key) -> Value? {
        get {
            let key = key._mapKey
            return snapshot.first { $0.key == key }?.value
        }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeObject(for: key) }
        }
    }

    /// Sets the value for `key`.
    public func updateValue(_ value: Value, forKey key: Key) {
        let key = key._mapKey
        storage.edit("updateValue", managed: { transaction, owner in
            transaction.apply(.mapSet(table: owner.table.index, key: owner.key, property: owner.property, mapKey: key,
                                      value: value._toPersisted(in: owner.writeContext(transaction))))
        }, unmanaged: { $0[key] = value })
    }

    /// Removes the entry for `key`, if there is one.
    public func removeObject(for key: Key) {
        let key = key._mapKey
        storage.read(managed: { owner in
            // A key that is not there is no change (not a write outside a
            // transaction): checked before asking for the write in progress.
            guard keys.contains(key) else { return }
            let transaction = owner.transaction("removeObject")
            transaction.apply(.mapRemove(table: owner.table.index, key: owner.key, property: owner.property, mapKey: key))
        }, unmanaged: { _ = $0.removeValue(forKey: key) })
    }

    /// Removes every entry.
    public func removeAll() {
        storage.edit("removeAll", managed: { transaction, owner in
            transaction.apply(.clear(table: owner.table.index, key: owner.key, property: owner.property))
        }, unmanaged: { $0.removeAll() })
    }
}

extension Map: _PersistableProperty {
    public static var _propertyKind: _PropertyKind { propertyKind(.map, of: Value._valueKind) }
    public static func _read(_ value: PersistedValue, in context: _ReadContext) -> Map<Key, Value> { managed(in: context) }
    public func _write(in context: _WriteContext) -> PersistedValue {
        .map(snapshot.map { MapEntry(key: $0.key, value: $0.value._toPersisted(in: context)) })
    }
    public static func _makeDefault() -> Map<Key, Value> { Map() }
    public static func _recordingValue(_ recording: _Recording) -> Map<Key, Value>? { nil }
}

/// The key type of a ``Map``: `String`. Implementation detail.
public protocol _MapKey: Hashable, Sendable {
    var _mapKey: String { get }
}

extension String: _MapKey {
    public var _mapKey: String { self }
}
