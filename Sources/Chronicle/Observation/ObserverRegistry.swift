/// Matches each commit's change set against registered observers.
final class ObserverRegistry: Sendable {
    func dispatch(_ changes: ChangeSet, state: StoreState, store: Store) {}
}
