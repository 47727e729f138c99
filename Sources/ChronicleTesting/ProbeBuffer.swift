/// The buffer behind a ``StreamProbe``: elements pushed by the consuming
/// task (or a callback), and the test's waits for them.
final class ProbeBuffer<Element: Sendable>: Sendable {
    /// How a wait ended.
    enum Outcome: Sendable {
        case element(Element)
        case finished
        case timedOut
        case cancelled
    }

    private struct State: Sendable {
        var elements: [Element] = []
        var isFinished = false
        var waiters: [(id: Int, continuation: CheckedContinuation<Outcome, Never>)] = []
        /// Waits whose task was cancelled before they registered.
        var cancelled: Set<Int> = []
        var nextID = 0

        /// A buffered element, or the end of the stream; `nil` when a wait must suspend.
        mutating func takeReady() -> Outcome? {
            if !elements.isEmpty { return .element(elements.removeFirst()) }
            return isFinished ? .finished : nil
        }
    }

    private let state = Lock(State())

    /// Hands `element` to a waiting test, or buffers it.
    func push(_ element: Element) {
        let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
            guard !state.isFinished else { return nil }
            guard !state.waiters.isEmpty else {
                state.elements.append(element)
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        waiter?.resume(returning: .element(element))
    }

    /// Marks the end of the stream; waits end with ``Outcome/finished``.
    func finish() {
        let waiters = state.withLock { state in
            state.isFinished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(returning: .finished) }
    }

    var pending: [Element] { state.withLock { $0.elements } }
    var isFinished: Bool { state.withLock { $0.isFinished && $0.elements.isEmpty } }

    /// The next element, racing the wait against `timeout`. An element that
    /// arrives as the timeout fires is returned, never dropped.
    func next(timeout: Duration) async -> Outcome {
        if let ready = state.withLock({ $0.takeReady() }) { return ready }
        return await withTaskGroup(of: Outcome.self) { group in
            group.addTask { await self.wait() }
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return .cancelled }
                return .timedOut
            }
            var outcome = await group.next() ?? .cancelled
            group.cancelAll()
            while let other = await group.next() {
                if case .element = other { outcome = other }
            }
            return outcome
        }
    }

    private func wait() async -> Outcome {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        defer { _ = state.withLock { $0.cancelled.remove(id) } }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let ready = state.withLock { state -> Outcome? in
                    if state.cancelled.remove(id) != nil { return .cancelled }
                    if let ready = state.takeReady() { return ready }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
                if let index = state.waiters.firstIndex(where: { $0.id == id }) {
                    return state.waiters.remove(at: index).continuation
                }
                state.cancelled.insert(id)
                return nil
            }
            waiter?.resume(returning: .cancelled)
        }
    }
}
