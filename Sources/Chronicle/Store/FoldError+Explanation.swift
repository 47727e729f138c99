extension FoldError {
    /// This error with an ``explanation`` in the model's terms, read from
    /// `state`, the state the failed event was applied to: a type's name
    /// instead of a table index, a property's name instead of its index, a
    /// primary key instead of an object key.
    func explained(in state: StoreState) -> FoldError {
        var explained = self
        explained.explanation = explanation(in: state)
        return explained
    }

    private func explanation(in state: StoreState) -> String? {
        guard let event, let table = event.target?.table, state.schema.indices.contains(table) else { return nil }
        let schema = state.schema[table]
        let type = schema.name
        let property = event.property.flatMap { schema.properties.indices.contains($0) ? schema.properties[$0].name : nil }
        switch reason {
        case let .duplicatePrimaryKey(value, _):
            let name = schema.primaryKeyIndex.map { schema.properties[$0].name } ?? "primary key"
            return "a \(type) with \(name) \(value) already exists; to update it, add with update: .modified or .all"
        case .noSuchObject:
            if case .delete = event { return "this \(type) was already deleted" }
            let what = property.map { "cannot change '\($0)' of" } ?? "cannot change"
            return "\(what) a \(type) that was deleted; check isInvalidated before writing to an object another write may delete"
        case .primaryKeyChange:
            return "the primary key '\(property ?? "?")' of a \(type) cannot change; delete the object and add a new one"
        case let .typeMismatch(_, value):
            return "\(value) does not fit \(type).\(property ?? "?")"
        case let .embeddedObjectAlreadyOwned(target, _):
            let embedded = state.schema.indices.contains(target) ? state.schema[target].name : "embedded object"
            return "this \(embedded) is already embedded in another object; assign a new, unmanaged \(embedded) to \(type).\(property ?? "?")"
        case let .danglingLink(target, _):
            let linked = state.schema.indices.contains(target) ? state.schema[target].name : "object"
            return "\(type).\(property ?? "?") links to a \(linked) that was deleted or never added"
        case let .indexOutOfRange(index, count):
            return "index \(index) is out of range for \(type).\(property ?? "?"), which has \(count) elements"
        default:
            return nil
        }
    }
}

extension Event {
    /// The property the event addresses, if it addresses one.
    var property: Int? {
        switch self {
        case .defineType, .addProperty, .changeSchema, .create, .delete: nil
        case .set(_, _, let property, _), .listInsert(_, _, let property, _, _), .listRemove(_, _, let property, _),
             .listMove(_, _, let property, _, _), .listReplace(_, _, let property, _, _), .setInsert(_, _, let property, _),
             .setRemove(_, _, let property, _), .mapSet(_, _, let property, _, _), .mapRemove(_, _, let property, _),
             .clear(_, _, let property): property
        }
    }
}
