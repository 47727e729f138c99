/// Chooses index look-ups for a query: an equality on the primary key or on
/// an indexed property, at the top level of the query (alone or inside an
/// `&&`), narrows the candidates to the objects the index lists.
enum IndexPlanner {
    /// The candidate keys for `node`, or `nil` when no index applies and the
    /// table must be scanned.
    ///
    /// - Complexity: O(1) expected for a primary key, O(*k*) for *k*
    ///   objects with the indexed value.
    static func candidates(for node: QueryNode, table: Int, in state: StoreState) -> [ObjectKey]? {
        switch node {
        case .compare(let path, .equal, let value) where path.components.count == 1:
            let schema = state.schema[table]
            guard let property = schema.propertyIndex(named: path.components[0]) else { return nil }
            let declared = schema.properties[property]
            if declared.isPrimaryKey {
                return state.key(table: table, primaryKey: value).map { [$0] } ?? []
            }
            if declared.isIndexed { return state.keys(table: table, property: property, equalTo: value) }
            return nil
        case .and(let terms):
            for term in terms {
                if let keys = candidates(for: term, table: table, in: state) { return keys }
            }
            return nil
        default:
            return nil
        }
    }

    /// Whether the candidates for `node` are exactly the objects that match
    /// it, so that no object needs testing: `node` is itself an equality
    /// on an indexed property (or the primary key) with a constant of the
    /// case the property stores, and of a kind whose index identity is the
    /// query's equality. Floating-point values are left out (a query's NaN
    /// equals nothing; an index's NaN equals a NaN), and so are values of
    /// another case (a query compares an `Int` with a `Double`; an index
    /// keeps them apart).
    static func answersExactly(_ node: QueryNode, table: Int, in state: StoreState) -> Bool {
        guard case .compare(let path, .equal, let value) = node, path.components.count == 1,
              let property = state.schema[table].propertyIndex(named: path.components[0]) else { return false }
        let declared = state.schema[table].properties[property]
        guard declared.isIndexed || declared.isPrimaryKey else { return false }
        switch value {
        case .null: return declared.isOptional
        case .bool, .int, .string, .uuid, .objectId: return declared.type.accepts(value)
        default: return false
        }
    }
}
