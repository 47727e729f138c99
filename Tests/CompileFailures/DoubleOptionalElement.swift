// expect: conform to '_PersistableWrapped'
// `Int??` cannot be told from `Int?` in the schema: not an element type.
import Chronicle

final class Scores: Object {
    @Persisted var values: List<Int??>
}
