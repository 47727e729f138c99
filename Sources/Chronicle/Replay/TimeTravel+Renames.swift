/// Following a table and a property back across the migrations that
/// renamed them or moved them to another table index.
extension TimeTravel {
    /// Where a table (and one of its properties) of the last version was at
    /// earlier versions: the migrations between can have renamed the
    /// property, renamed the type (its index stays) or removed a type
    /// before it (its index moves down).
    struct SchemaTrail {
        /// One schema change that moves the table or renames the property, in commit `version`.
        enum Step {
            case removeType(table: Int)
            case defineType(table: Int)
            case renameProperty(table: Int, from: String, to: String)
        }

        /// The table and property name at the last version.
        let table: Int
        let property: String?
        /// The steps after the start, oldest first.
        let steps: [(version: UInt64, step: Step)]

        /// The table index and property name at `version`, or `nil` when
        /// the table did not exist yet then.
        /// - Complexity: O(steps after `version`): a migration or two.
        func location(at version: UInt64) -> (table: Int, property: String?)? {
            var table = self.table
            var property = self.property
            for (stepVersion, step) in steps.reversed() where stepVersion > version {
                switch step {
                case .removeType(let removed):
                    if table >= removed { table += 1 }
                case .defineType(let defined):
                    if table == defined { return nil }
                case let .renameProperty(renamed, from, to):
                    if renamed == table && property == to { property = from }
                }
            }
            return (table, property)
        }
    }

    /// The trail of `table` (and its property `property`, as named at
    /// `last`) through the commits after `state` through `last`, read from
    /// the commits' schema events alone (no fold).
    ///
    /// - Complexity: O(commits read); a journal never migrated is read only
    ///   if the caller cannot tell (see ``Store/history(of:keyPath:)``).
    func trail(table: Int, property: String?, after state: StoreState, through last: UInt64) throws(StoreError) -> SchemaTrail {
        var lineage = SchemaLineage(state.schema)
        var steps: [(version: UInt64, step: SchemaTrail.Step)] = []
        var reader = journal.reader(from: state.version + 1)
        while true {
            let next: Commit?
            do { next = try reader.next() } catch { throw .journal(error) }
            guard let commit = next, commit.version <= last else { break }
            for event in commit.events {
                let schema = lineage.schema
                switch event {
                case .defineType:
                    steps.append((commit.version, .defineType(table: schema.count)))
                case let .changeSchema(.renameProperty(index, property, name))
                    where schema.indices.contains(index) && schema[index].properties.indices.contains(property):
                    steps.append((commit.version, .renameProperty(table: index, from: schema[index].properties[property].name, to: name)))
                case .changeSchema(.removeType(let index)) where schema.indices.contains(index):
                    steps.append((commit.version, .removeType(table: index)))
                default:
                    break
                }
                lineage.apply(event)
            }
        }
        return SchemaTrail(table: table, property: property, steps: steps)
    }
}
