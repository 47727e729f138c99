import Foundation
import Testing
@testable import Chronicle

/// A write builds its change set only when someone observes the store.
@Suite("Observer dispatch")
struct ObserverDispatchTests {
    @Test func theChangeSetIsBuiltOnlyWithObservers() async throws {
        let store = try scratchStore()
        let state = store.committedState()
        let built = Locked(0)
        func dispatch() {
            store.observers.dispatch(building: {
                built.withLock { $0 += 1 }
                return .empty(version: state.version + 1)
            }, old: state, new: state)
        }
        dispatch()
        #expect(built.withLock { $0 } == 0, "no observer: nothing to build")

        let counter = Counter()
        try store.write { store.add(counter) }
        let token = counter.observe { _ in }
        defer { token.invalidate() }
        for _ in 0..<400 where store.observers.count == 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(store.observers.count == 1)
        dispatch()
        #expect(built.withLock { $0 } == 1, "an observer: the change set is built")
    }
}
