// expect: risks causing data races
// A callback that changes main-actor state cannot be sent to another actor.
import Chronicle

final class Item: Object { @Persisted var value = 0 }
actor Logger {}

@MainActor final class Model {
    var count = 0
    func start(_ item: Item, logger: Logger) async -> NotificationToken {
        await item.observe(keyPaths: ["value"], on: logger) { _ in self.count += 1 }
    }
}
