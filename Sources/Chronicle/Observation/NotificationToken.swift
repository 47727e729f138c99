/// Keeps a callback observation alive. Observation stops when you call
/// ``invalidate()`` or the token is deallocated.
public final class NotificationToken: Sendable {
    private let task: Task<Void, Never>

    init(_ task: Task<Void, Never>) { self.task = task }

    /// Stops the observation; the callback is not called again.
    public func invalidate() { task.cancel() }

    deinit { task.cancel() }
}
