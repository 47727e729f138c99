import Logging
import PostgresNIO
import Synchronization

/// Wakes the requests of this process that wait for a scope's next commit,
/// whichever server process appended it: appends `NOTIFY` the channel, and
/// one connection per process `LISTEN`s to it.
///
/// A waiter that hears nothing still looks again after a short while (see
/// ``SyncRoutes``), so a listening connection lost to a database restart
/// only delays wake-ups until it is back.
public final class CommitNotifier: Sendable {
    private enum Entry {
        case waiting(scope: String, CheckedContinuation<Void, Never>)
        /// Resumed (timed out or cancelled) before its continuation was registered.
        case finished
    }
    private let waiters = Mutex<[UInt64: Entry]>([:])
    private let nextID = Atomic<UInt64>(1)

    /// A notifier with no waiters.
    public init() {}

    /// Waits until a commit to `scope` is announced or `timeout` passes.
    /// A task cancelled while waiting returns at once.
    public func wait(for scope: String, timeout: Duration) async {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withTaskCancellationHandler {
                    await withCheckedContinuation { continuation in
                        let early = self.waiters.withLock { waiters in
                            if case .finished = waiters[id] { return true }
                            waiters[id] = .waiting(scope: scope, continuation)
                            return false
                        }
                        if early { continuation.resume() }
                    }
                } onCancel: {
                    self.resume(id)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                self.resume(id)
            }
            await group.next()
            group.cancelAll()
        }
        waiters.withLock { _ = $0.removeValue(forKey: id) }
    }

    private func resume(_ id: UInt64) {
        let continuation: CheckedContinuation<Void, Never>? = waiters.withLock { waiters in
            switch waiters[id] {
            case .waiting(_, let continuation):
                waiters[id] = .finished
                return continuation
            case .finished: return nil
            case nil:
                waiters[id] = .finished
                return nil
            }
        }
        continuation?.resume()
    }

    /// Wakes every waiter of `scope`.
    public func announce(_ scope: String) {
        let woken = waiters.withLock { waiters in
            var woken: [CheckedContinuation<Void, Never>] = []
            for (id, entry) in waiters {
                if case .waiting(let waiting, let continuation) = entry, waiting == scope {
                    woken.append(continuation)
                    waiters[id] = .finished
                }
            }
            return woken
        }
        for continuation in woken { continuation.resume() }
    }

    /// Listens for appends until the task is cancelled, reconnecting after
    /// a lost connection.
    public func listen(client: PostgresClient, logger: Logger) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: CommitDatabase.channel) { notifications in
                        logger.info("listening for commits", metadata: ["channel": "\(CommitDatabase.channel)"])
                        for try await notification in notifications { announce(notification.payload) }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                logger.warning("lost the LISTEN connection; retrying", metadata: ["error": "\(String(reflecting: error))"])
            }
            try? await Task.sleep(for: .milliseconds(500))
        }
    }
}
