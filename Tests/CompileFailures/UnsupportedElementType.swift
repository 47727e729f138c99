// expect: 'Color' does not conform to protocol '_PersistableValue'
// A struct is not an element type: the message DefiningModels.md explains.
import Chronicle

struct Color: Sendable { var red = 0.0 }

final class Palette: Object {
    @Persisted var colors: List<Color>
}
