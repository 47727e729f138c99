// expect: requires that 'Color' conform to '_PersistableProperty'
// A struct is not a property type: the message DefiningModels.md explains.
import Chronicle

struct Color: Sendable { var red = 0.0 }

final class Car: Object {
    @Persisted var color = Color()
}
