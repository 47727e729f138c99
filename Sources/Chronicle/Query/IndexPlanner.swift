/// Chooses index look-ups for a query: an equality on the primary key or on
/// an indexed property, at the top level of the query (alone or inside an
/// `&&`), narrows the candidates to the objects the index lists.
enum IndexPlanner {
    /// What an index says about a query node.
    struct Answer {
        /// The objects the index lists for the equality, ascending.
        var keys: [ObjectKey]
        /// Whether `keys` are exactly the objects that match the node, so
        /// that none needs testing: the node is itself the equality, and
        /// the index's notion of equal is the query's (see
        /// ``equalityIsIdentity(_:of:)``).
        var isExact: Bool
    }

    /// The index's answer for `node`, or `nil` when no index applies and
    /// the table must be scanned.
    ///
    /// - Complexity: O(1) expected for a primary key, O(*k*) for *k*
    ///   objects with the indexed value.
    static func candidates(for node: QueryNode, table: Int, in state: StoreState) -> Answer? {
        switch node {
        case .compare(let path, .equal, let value) where path.components.count == 1:
            let schema = state.schema[table]
            guard let property = schema.propertyIndex(named: path.components[0]) else { return nil }
            let declared = schema.properties[property]
            let keys: [ObjectKey]
            if declared.isPrimaryKey {
                keys = state.key(table: table, primaryKey: value).map { [$0] } ?? []
            } else if declared.isIndexed, let indexed = state.keys(table: table, property: property, equalTo: value) {
                keys = indexed
            } else {
                return nil
            }
            return Answer(keys: keys, isExact: equalityIsIdentity(value, of: declared))
        case .and(let terms):
            for term in terms {
                if var answer = candidates(for: term, table: table, in: state) {
                    answer.isExact = false
                    return answer
                }
            }
            return nil
        default:
            return nil
        }
    }

    /// Whether a query's `==` against `value` holds exactly for the stored
    /// values an index files under `value`: integers, strings, booleans,
    /// ids and nil, of the case the property stores. Not floating point or
    /// dates (a query's NaN equals nothing, an index's NaN equals a NaN),
    /// nor a value of another case (a query compares an `Int` with a
    /// `Double`; an index keeps them apart).
    static func equalityIsIdentity(_ value: PersistedValue, of property: PropertySchema) -> Bool {
        switch value {
        case .null: property.isOptional
        case .bool, .int, .string, .uuid, .objectId: property.type.accepts(value)
        default: false
        }
    }
}
