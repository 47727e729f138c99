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
    /// longer declares is not a misread, nor is one added since (it reads
    /// its declared default): changed ones stop, and so does one a
    /// migration renamed since (the class would read its default where
    /// the values are, under the old name).
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
        // the class would read its default instead. One it added reads its
        // default rightly.
        let migratedSince = historical && state.schemaVersion < current.schemaVersion
        var pending = [metadata]
        var seen: Set<ObjectIdentifier> = []
        while let next = pending.popLast() {
            guard seen.insert(ObjectIdentifier(next.type)).inserted else { continue }
            if let other = made.first(where: { $0.metadata.name == next.name && $0.metadata.type != next.type }) {
                preconditionFailure("Chronicle: \(SchemaError.duplicateTypeName(next.name)) "
                    + "(\(String(reflecting: other.metadata.type)) and \(String(reflecting: next.type)))")
            }
            guard let index = state.tableIndex(named: next.name) else {
                if let problem = typeRenameProblem(next.name, in: state) { return problem }
                continue
            }
            let diff = SchemaDiff(recorded: state.schema[index], declared: next.schema)
            var stopping = historical ? diff.changes : diff.mismatches
            if migratedSince, !diff.added.isEmpty {
                let renamed = propertyRenames(ofType: next.name, since: state)
                for property in diff.added {
                    guard let old = renamed.map({ $0[property.name] }) else {
                        stopping.append("the class declares '\(property.name)', which version \(state.version) does not have, "
                            + "and the journal could not be read to tell whether a migration renamed it")
                        continue
                    }
                    if let old {
                        stopping.append("the class declares '\(property.name)', which version \(state.version) calls '\(old)' "
                            + "(a migration renamed it since)")
                    }
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
    /// What the migrations after `state` did to its schema: the latest
    /// schema and where its types and properties were in `state`. Kept per
    /// version (a few: the versions classes were read in). `nil` when the
    /// journal cannot be read.
    ///
    /// - Complexity: O(commits after `state`) the first time for a version
    ///   and latest version, read for their schema events; O(1) after.
    func migrationLineage(since state: StoreState) -> MigrationLineage? {
        let last = committedState().version
        if let kept = migrationLineages.withLock({ $0[state.version] }), kept.through == last { return kept }
        var lineage = SchemaLineage(state.schema)
        var reader = journal.reader(from: state.version + 1)
        do {
            while reader.nextVersion <= last, let commit = try reader.next() {
                for event in commit.events { lineage.apply(event) }
            }
        } catch {
            return nil
        }
        let found = MigrationLineage(through: last, lineage: lineage)
        migrationLineages.withLock { kept in
            if kept.count >= 16 { kept.removeAll() }
            kept[state.version] = found
        }
        return found
    }

    /// The properties of the type named `typeName` (as the latest version
    /// names it) that migrations after `state` renamed: latest name →
    /// name at `state`. A property added since is not among them. `nil`
    /// when the journal cannot be read.
    /// - Complexity: as ``migrationLineage(since:)``.
    func propertyRenames(ofType typeName: String, since state: StoreState) -> [String: String]? {
        guard let found = migrationLineage(since: state) else { return nil }
        guard let table = found.lineage.schema.firstIndex(where: { $0.name == typeName }),
              let origin = found.lineage.tables[table] else { return [:] }
        var renames: [String: String] = [:]
        for (index, property) in found.lineage.schema[table].properties.enumerated() {
            guard let was = found.lineage.properties[table][index] else { continue }
            let old = state.schema[origin].properties[was].name
            if old != property.name { renames[property.name] = old }
        }
        return renames
    }

    /// Stops the program before a class reads an older version in which
    /// its type is missing because a migration renamed it since: it would
    /// read no objects where there were some, under the old name. A type a
    /// migration added since rightly reads none.
    /// - Complexity: O(1) unless a migration lies between `state` and the
    ///   latest version and the type is in the latest; then as
    ///   ``migrationLineage(since:)``.
    func checkTypeNotRenamed(_ metadata: ClassMetadata, in state: StoreState) {
        if let error = typeRenameProblem(metadata.name, in: state) { preconditionFailure("Chronicle: \(error)") }
    }

    /// Why a class named `name` cannot read `state`, which has no type of
    /// that name because a migration renamed it since; `nil` otherwise.
    /// - Complexity: as ``checkTypeNotRenamed(_:in:)``.
    func typeRenameProblem(_ name: String, in state: StoreState) -> SchemaError? {
        let current = committedState()
        guard state.version < current.version, state.schemaVersion < current.schemaVersion,
              current.tableIndex(named: name) != nil, let found = migrationLineage(since: state),
              let table = found.lineage.schema.firstIndex(where: { $0.name == name }),
              let origin = found.lineage.tables[table] else { return nil }
        return .unreadableVersion(type: name, version: state.version, differences: [
            "version \(state.version) calls the type '\(state.schema[origin].name)' (a migration renamed it since)",
        ])
    }

    /// The class some binding of this store reads the type named `name`
    /// with, if any: another class of that name would misread its table.
    func boundClass(named name: String) -> ObjectBase.Type? {
        madeBindings.withLock { made in made.first { $0.metadata.name == name }?.metadata.type }
    }
}
