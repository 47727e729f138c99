/// Following a property across the migrations that renamed it.
extension TimeTravel {
    /// One rename of a property of a table, in the commit `version`.
    struct PropertyRename {
        let version: UInt64
        let from: String
        let to: String
    }

    /// The renames of `table`'s properties in the commits after `state`
    /// through `last`, in order, read from the commits' schema events alone
    /// (no fold).
    ///
    /// - Complexity: O(commits read); a journal never migrated is read only
    ///   if the caller cannot tell (see ``Store/history(of:keyPath:)``).
    func propertyRenames(table: Int, after state: StoreState, through last: UInt64) throws(StoreError) -> [PropertyRename] {
        var schema = state.schema
        var renames: [PropertyRename] = []
        var reader = journal.reader(from: state.version + 1)
        while true {
            let next: Commit?
            do { next = try reader.next() } catch { throw .journal(error) }
            guard let commit = next, commit.version <= last else { break }
            for event in commit.events {
                switch event {
                case .defineType(let type): schema.append(type)
                case .addProperty(let index, let property) where schema.indices.contains(index):
                    schema[index].properties.append(property)
                case .changeSchema(let change):
                    if case let .renameProperty(index, property, name) = change, index == table,
                       schema.indices.contains(index), schema[index].properties.indices.contains(property) {
                        renames.append(PropertyRename(version: commit.version, from: schema[index].properties[property].name, to: name))
                    }
                    schema = change.applied(to: schema)
                default: break
                }
            }
        }
        return renames
    }
}

extension Array where Element == TimeTravel.PropertyRename {
    /// The name that the property called `name` at the end had in the
    /// state of `version`: renames after `version` undone, newest first.
    func name(_ name: String, at version: UInt64) -> String {
        var name = name
        for rename in reversed() where rename.version > version && rename.to == name { name = rename.from }
        return name
    }
}
