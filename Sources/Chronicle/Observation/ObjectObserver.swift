/// Observes one object (or a projection of it) for the properties it was
/// asked about, and feeds a ``PropertyChangeMailbox``.
final class ObjectObserver<T: _ObjectProjecting>: StoreObserver, @unchecked Sendable {
    // Safety: every stored property is immutable; `commitDidApply` is only
    // called by the store's writer, one commit at a time.
    let table: TableBinding
    let key: ObjectKey
    let properties: [ObservedProperty]
    let baselineVersion: UInt64
    let buffer = PropertyChangeMailbox()
    /// What the stream's changes carry: the live object or projection.
    let element: T
    /// Whether a path goes through a link: only then does the interest
    /// depend on the state. Otherwise it is always just the object, and a
    /// commit that touched none of the observed properties costs no more
    /// than the check (recomputing the interest each commit made an update
    /// of an unobserved property markedly dearer with many observers).
    private let hasNestedPaths: Bool
    /// The interest of an observer without nested paths, made once: each
    /// commit returns this same value, whose set the registry then finds
    /// equal to the one it holds by identity, without hashing (a new set
    /// per commit was an allocation, a hash and a comparison per matched
    /// observer).
    private let ownInterest: ObserverInterest

    /// An observer of object `key`, whose properties resolve against `state`.
    init(table: TableBinding, key: ObjectKey, properties: [ObservedProperty], baselineVersion: UInt64, element: T,
         in state: StoreState) {
        self.table = table
        self.key = key
        self.properties = properties
        self.baselineVersion = baselineVersion
        self.element = element
        hasNestedPaths = properties.contains { $0.dependencies.contains { $0.count > 1 } }
        ownInterest = ObserverInterest(objects: [TableKey(table: table.index, key: key)],
                                       properties: Self.propertyMask(properties, table: table.index, in: state))
    }

    /// The footprint bits of the observed properties, so that the registry
    /// skips commits that set none of them; `nil` (any change) when a path
    /// crosses a link or a name does not resolve.
    private static func propertyMask(_ properties: [ObservedProperty], table: Int, in state: StoreState) -> UInt64? {
        var mask: UInt64 = 0
        for property in properties {
            for path in property.dependencies {
                guard path.count == 1, let (index, _) = ChangePaths.resolve(path[0], table: table, in: state) else { return nil }
                mask |= ChangeFootprint.bit(index)
            }
        }
        return mask
    }

    /// The object itself, plus every object its nested paths pass through.
    func interest(in state: StoreState) -> ObserverInterest {
        guard hasNestedPaths else { return ownInterest }
        var objects: Set<TableKey> = [TableKey(table: table.index, key: key)]
        for property in properties {
            for path in property.dependencies where path.count > 1 {
                objects.formUnion(ChangePaths.reachable(path, table: table.index, key: key, in: state))
            }
        }
        return ObserverInterest(objects: objects)
    }

    func commitDidApply(_ changes: ChangeSet, old: StoreState, new: StoreState) -> ObserverInterest? {
        if changes.isDeleted(table: table.index, key: key) {
            buffer.finishWithDeletion()
            return nil
        }
        var oldRoot: ObjectBase?
        var newRoot: ObjectBase?
        var oldRecord: RecordedSide?
        var newRecord: RecordedSide?
        var reported: [PropertyChange] = []
        for property in properties {
            let touched = property.dependencies.contains {
                ChangePaths.changed($0[...], table: table.index, key: key, changes: changes, old: old, new: new)
            }
            guard touched else { continue }
            // A property of the class itself: its two values converted from
            // the object's two records, as a frozen handle's reads would
            // convert them, without making the two handles (their bindings,
            // their pinned states) and freeing them again.
            if let ordinal = property.ordinal,
               let before = oldRecord ?? RecordedSide(old, table: table, key: key),
               let after = newRecord ?? RecordedSide(new, table: table, key: key) {
                oldRecord = before
                newRecord = after
                reported.append(PropertyChange(name: property.name,
                                               oldValue: before.value(ordinal: ordinal, table: table, key: key, in: old),
                                               newValue: after.value(ordinal: ordinal, table: table, key: key, in: new)))
                continue
            }
            let before = oldRoot ?? table.store.handle(table.metadata.type, table: table, key: key, .frozen(in: old))
            let after = newRoot ?? table.store.handle(table.metadata.type, table: table, key: key, .frozen(in: new))
            oldRoot = before
            newRoot = after
            reported.append(PropertyChange(name: property.name, oldValue: property.read(before), newValue: property.read(after)))
        }
        if !reported.isEmpty { buffer.deliver(reported) }
        return interest(in: new)
    }
}

/// One state's side of an observed object's change: the object's record
/// in that state.
private struct RecordedSide {
    let record: ObjectRecord

    /// `nil` if the state has no such object (its reads then go through a
    /// frozen handle, which says so).
    init?(_ state: StoreState, table: TableBinding, key: ObjectKey) {
        guard let record = state.object(table: table.index, key: key) else { return nil }
        self.record = record
    }

    /// Property `ordinal`'s value, typed as declared: what a handle frozen
    /// in `state` (this side's) reads. A property the journal does not have
    /// yet reads as its declared default; a link or a collection is frozen
    /// in `state`, pinned for it (a plain value needs no state).
    func value(ordinal: Int, table: TableBinding, key: ObjectKey, in state: StoreState) -> any Sendable {
        let property = table.property(forOrdinal: ordinal)
        let stored = property < 0 ? table.metadata.declaredDefaults[ordinal] ?? .null : record[property]
        let declared = table.metadata.properties[ordinal]
        let isPlain = declared.kind.objectType == nil && declared.kind.collection == .none
        let context = _ReadContext(table: table, key: key, property: property, ordinal: ordinal,
                                   frozen: isPlain ? nil : PinnedState(state))
        return declared.convert(stored, context)
    }
}
