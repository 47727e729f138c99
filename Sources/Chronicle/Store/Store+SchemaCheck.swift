extension Store {
    /// Stops the program before a class whose declared schema does not
    /// match `state`'s is read through: without this, a journal's `Int`
    /// read as a class's `Double` is `0.0`, and a query on it matches
    /// objects it should not. Writes never get here with a mismatch (a
    /// write registers its classes first, and throws
    /// ``StoreError/schema(_:)``); reads cannot throw, so a mismatch is a
    /// precondition whose message names the type, the property, both
    /// types and the migration that fixes it.
    ///
    /// The types the class links to are checked too (a query through a
    /// link reads their values). In a state older than the store's latest
    /// (``Store/frozen(at:)-(UInt64)`` before a migration), a property the class no
    /// longer declares is not a misread: only changed ones stop.
    ///
    /// - Parameter made: the bindings made so far, to tell a class that
    ///   shares its name with another from a class that changed.
    /// - Complexity: O(properties of the class and the types it links to),
    ///   once per class and schema (bindings are kept).
    func checkReadable(_ metadata: ClassMetadata, in state: StoreState, made: [TableBinding]) {
        let historical = state.version < committedState().version
        var pending = [metadata]
        var seen: Set<ObjectIdentifier> = []
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next.type)).inserted else { continue }
            if let other = made.first(where: { $0.metadata.name == next.name && $0.metadata.type != next.type }) {
                preconditionFailure("Chronicle: \(SchemaError.duplicateTypeName(next.name)) "
                    + "(\(String(reflecting: other.metadata.type)) and \(String(reflecting: next.type)))")
            }
            guard let index = state.tableIndex(named: next.name) else { continue }
            let diff = SchemaDiff(recorded: state.schema[index], declared: next.schema)
            let stopping = historical ? diff.changes : diff.mismatches
            if !stopping.isEmpty {
                preconditionFailure("Chronicle: the class \(next.name) cannot read this store: \(stopping.joined(separator: "; ")). "
                    + "Reading it would give wrong values. "
                    + SchemaError.migrationAdvice(type: next.name, differences: stopping))
            }
            for linked in next.linkedTypes {
                if let linkedMetadata = try? ClassMetadata.of(linked) { pending.append(linkedMetadata) }
            }
        }
    }
}

extension Store {
    /// The class some binding of this store reads the type named `name`
    /// with, if any: another class of that name would misread its table.
    func boundClass(named name: String) -> ObjectBase.Type? {
        madeBindings.withLock { made in made.first { $0.metadata.name == name }?.metadata.type }
    }
}
