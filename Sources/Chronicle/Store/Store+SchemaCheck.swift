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
    /// longer declares is not a misread: only changed ones stop, and — when
    /// a migration lies between — the properties the class declares and
    /// that version lacks (the migration may have renamed them: the class
    /// would read defaults where the values are under the old name).
    ///
    /// - Parameter made: the bindings made so far, to tell a class that
    ///   shares its name with another from a class that changed.
    /// - Complexity: O(properties of the class and the types it links to),
    ///   once per class and schema (bindings are kept).
    func checkReadable(_ metadata: ClassMetadata, in state: StoreState, made: [TableBinding]) {
        switch readProblem(metadata, in: state, made: made) {
        case nil:
            break
        case .mismatch(let type, let differences)?:
            preconditionFailure("Chronicle: the class \(type) cannot read this store: \(differences.joined(separator: "; ")). "
                + "Reading it would give wrong values. " + SchemaError.migrationAdvice(type: type, differences: differences))
        case let error?:
            preconditionFailure("Chronicle: \(error)")
        }
    }

    /// Why the class of `metadata` cannot read `state` (see
    /// ``checkReadable(_:in:made:)``), or `nil` when it can.
    /// - Complexity: as ``checkReadable(_:in:made:)``.
    func readProblem(_ metadata: ClassMetadata, in state: StoreState, made: [TableBinding]) -> SchemaError? {
        let current = committedState()
        let historical = state.version < current.version
        // Before a migration, a property the version lacks may be one the
        // migration renamed (its values are there, under the old name):
        // the class would read its default instead.
        let migratedSince = historical && state.schemaVersion < current.schemaVersion
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
            var stopping = historical ? diff.changes : diff.mismatches
            if migratedSince {
                stopping += diff.added.map {
                    "the class declares '\($0.name)', which version \(state.version) does not have: a migration since added it, "
                        + "or renamed it from another property"
                }
            }
            if !stopping.isEmpty {
                return historical
                    ? .unreadableVersion(type: next.name, version: state.version, differences: stopping)
                    : .mismatch(type: next.name, differences: stopping)
            }
            for linked in next.linkedTypes {
                if let linkedMetadata = try? ClassMetadata.of(linked) { pending.append(linkedMetadata) }
            }
        }
        return nil
    }
}

extension Store {
    /// The class some binding of this store reads the type named `name`
    /// with, if any: another class of that name would misread its table.
    func boundClass(named name: String) -> ObjectBase.Type? {
        madeBindings.withLock { made in made.first { $0.metadata.name == name }?.metadata.type }
    }
}
