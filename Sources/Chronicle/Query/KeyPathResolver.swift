/// Maps one key path to the persisted property path it reads, or `nil` when
/// the key path is not persisted (a computed property, say).
///
/// The model layer supplies it. It is asked about each key path of a
/// predicate separately, rooted at the type the key path starts from:
/// `$0.address?.city` asks about `\Person.address` and then `\Address.city`,
/// and the translator joins the answers. Sort descriptors pass whole
/// composed key paths such as `\Person.address?.city`.
typealias KeyPathResolver = (AnyKeyPath) throws -> PropertyPath?

/// What a resolver throws for a key path that reads persisted properties
/// but computes its value from them (`\Person.lastName.localizedCapitalized`):
/// the translator leaves that operand to per-object evaluation and records
/// the dependencies as referenced paths.
struct ComputedKeyPath: Error {
    let dependencies: [PropertyPath]
}
