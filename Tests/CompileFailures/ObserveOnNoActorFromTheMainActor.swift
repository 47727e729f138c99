// expect: 'nil' is not compatible with expected argument type 'any Actor'
// A callback made on the main actor that mutates main-actor state must not
// be delivered on no actor (it would run off the main actor and trap).
import Chronicle

final class Item: Object { @Persisted var value = 0 }

@MainActor final class Model {
    var count = 0
    func start(_ item: Item) -> NotificationToken {
        item.observe(keyPaths: ["value"], on: nil) { _ in self.count += 1 }
    }
}
