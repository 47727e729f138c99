/// What the migrations after an older version did to its schema: the
/// schema at a later version, and where its types and properties were at
/// the older one. Made by ``Store/migrationLineage(since:)``, which keeps
/// it for the store's reads of that older version.
struct MigrationLineage: Sendable {
    /// The latest version it follows the schema to.
    let through: UInt64
    /// The schema at ``through`` (`lineage.schema`), and where its types
    /// and properties were at the older version.
    let lineage: SchemaLineage
}
