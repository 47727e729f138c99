extension Store {
    /// The metadata keys a migration commit carries.
    public enum MigrationMetadata {
        /// The schema version before the migration.
        public static let fromKey = "chronicle.migration.from"
        /// The schema version after it.
        public static let toKey = "chronicle.migration.to"
    }

    /// Brings the journal to ``Configuration/schemaVersion`` when the store
    /// opens: a journal of a lower version is migrated in one commit
    /// labelled "migration *old* → *new*" (its metadata names both
    /// versions); a journal without types just records the version; a
    /// journal of a higher version is an error.
    ///
    /// - Throws: ``StoreError/schema(_:)`` with
    ///   ``SchemaError/newerSchemaVersion(journal:app:)``, or with
    ///   ``SchemaError/migrationFailed(from:to:reason:)`` when the closure
    ///   throws or asks for a change that does not apply: nothing is then
    ///   written. ``StoreError/journal(_:)`` if the commit cannot be written.
    func migrateIfNeeded() throws(StoreError) {
        let state = committedState()
        let old = state.schemaVersion, new = configuration.schemaVersion
        if old > new { throw .schema(.newerSchemaVersion(journal: old, app: new)) }
        guard old < new else { return }
        let classes = try Self.declaredClasses(configuration.objectTypes ?? [])
        let from = String(old), to = String(new)
        do {
            guard !state.schema.isEmpty else {
                try write(label: "schema version \(new)", metadata: [MigrationMetadata.toKey: to]) {
                    currentTransaction()!.apply(.changeSchema(.setSchemaVersion(new)))
                }
                return
            }
            try write(label: "migration \(old) → \(new)", metadata: [MigrationMetadata.fromKey: from, MigrationMetadata.toKey: to]) {
                let migration = Migration(transaction: currentTransaction()!, declared: classes.map(\.schema), from: old, to: new)
                migration.declaredDefaults = Dictionary(classes.map { metadata in
                    (metadata.name, Dictionary(metadata.properties.indices.compactMap { ordinal in
                        metadata.declaredDefaults[ordinal].map { (metadata.properties[ordinal].name, $0) }
                    }, uniquingKeysWith: { first, _ in first }))
                }, uniquingKeysWith: { first, _ in first })
                migration.prepare()
                try configuration.migration?(migration, old)
                migration.finish()
            }
        } catch let error as StoreError {
            switch error {
            case .journal, .schema: throw error
            default: throw .schema(.migrationFailed(from: old, to: new, reason: "\(error)"))
            }
        } catch {
            throw .schema(.migrationFailed(from: old, to: new, reason: "\(error)"))
        }
    }

    /// The metadata of `types` and every class they link to.
    private static func declaredClasses(_ types: [ObjectBase.Type]) throws(StoreError) -> [ClassMetadata] {
        var found: [ClassMetadata] = []
        var seen: Set<ObjectIdentifier> = []
        var pending = types
        while let type = pending.popLast() {
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let metadata: ClassMetadata
            do { metadata = try ClassMetadata.of(type) } catch { throw .schema(error) }
            if found.contains(where: { $0.name == metadata.name }) { throw .schema(.duplicateTypeName(metadata.name)) }
            found.append(metadata)
            pending.append(contentsOf: metadata.linkedTypes)
        }
        return found
    }
}
