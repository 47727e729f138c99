import Dispatch
import Synchronization

/// A first-come, first-served lock that both blocking and `async` callers can
/// wait on: it serialises the store's write transactions.
///
/// A blocking caller parks its thread on a semaphore; an `async` caller
/// suspends on a continuation and so holds no thread while it waits.
/// Release hands the lock directly to the oldest waiter.
final class WriterLock: Sendable {
    private enum Waiter {
        case blocking(DispatchSemaphore)
        case suspended(CheckedContinuation<Void, Never>)
    }
    private let state = Locked<(held: Bool, waiters: [Waiter], head: Int)>((false, [], 0))

    func lock() {
        let semaphore: DispatchSemaphore? = state.withLock { state in
            if !state.held {
                state.held = true
                return nil
            }
            let semaphore = DispatchSemaphore(value: 0)
            state.waiters.append(.blocking(semaphore))
            return semaphore
        }
        semaphore?.wait()
    }

    func lock() async {
        let acquired = state.withLock { state in
            if state.held { return false }
            state.held = true
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let handedOver = state.withLock { state -> Bool in
                if !state.held {
                    state.held = true
                    return true
                }
                state.waiters.append(.suspended(continuation))
                return false
            }
            if handedOver { continuation.resume() }
        }
    }

    func unlock() {
        let next: Waiter? = state.withLock { state in
            guard state.head < state.waiters.count else {
                state.held = false
                state.waiters.removeAll(keepingCapacity: true)
                state.head = 0
                return nil
            }
            let waiter = state.waiters[state.head]
            state.head += 1
            return waiter   // the lock stays held: ownership passes to the waiter
        }
        switch next {
        case .blocking(let semaphore): semaphore.signal()
        case .suspended(let continuation): continuation.resume()
        case nil: break
        }
    }
}
