// expect: conform to '_PersistableWrapped'
// `Int??` cannot be told from `Int?` in the schema: not a property type.
import Chronicle

final class Reading: Object {
    @Persisted var value: Int??
}
