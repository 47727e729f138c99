/// The state a frozen object or collection is pinned to, shared by
/// reference: by a frozen handle's binding, the read contexts it makes and
/// the collections they make. (Not `FrozenStore`, the public read-only
/// view of a past version.)
///
/// A read context holding the state itself (`StoreState?`, four words) was
/// destroyed after every property read, live ones included, by an outlined
/// call the optimiser could not drop, a noticeable part of every read; a
/// `nil` reference needs no destroying.
final class PinnedState: Sendable {
    let state: StoreState

    init(_ state: StoreState) {
        self.state = state
    }
}
