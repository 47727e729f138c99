import Chronicle
import Foundation
import Testing

/// The fresh store of the running test, and the deterministic clock and
/// identifiers it was made with.
///
/// Available inside a test (or suite) that has the
/// ``Testing/Trait/freshStore`` trait, and inside
/// ``withFreshStore(objectTypes:seed:clock:_:)-(_,_,_,(Store)throws->R)``:
///
/// ```swift
/// @Test(.freshStore) func renaming() throws {
///     let store = TestStore.current
///     try store.write { store.add(Person()) }
/// }
/// ```
///
/// The values are task-local: each test sees its own store, even when tests
/// run in parallel, and tasks the test creates with `Task { }` or a task
/// group inherit them (`Task.detached` does not).
///
/// An exit test (`#expect(processExitsWith:)`) runs its body in a new
/// process, without the test's traits, so ``current`` is not available
/// there: it records an issue, which fails the test however the process
/// exits, and traps. Open a store inside the body with `withFreshStore`:
///
/// ```swift
/// @Test func addingAnObjectTwiceTraps() async {
///     await #expect(processExitsWith: .failure) {
///         try withFreshStore { store in
///             let person = Person()
///             try store.write { store.add(person); store.add(person) }
///         }
///     }
/// }
/// ```
public enum TestStore {
    /// What a fresh-store scope provides.
    struct Scope: Sendable {
        let store: Store
        let clock: TestClock
        let identifiers: SeededIdentifiers
    }

    @TaskLocal static var scope: Scope?

    /// The running test's fresh store.
    ///
    /// - Precondition: the test (or its suite) has the `.freshStore` trait,
    ///   or the caller runs inside `withFreshStore`.
    public static var current: Store { required.store }

    /// The clock that timestamps the fresh store's commits and answers
    /// ``Chronicle/ModelClock/now()``; pass it to code that sleeps, and
    /// ``TestClock/advance(by:)`` it to let time pass.
    /// - Precondition: as ``current``.
    public static var clock: TestClock { required.clock }

    /// The seeded generator of the `UUID`s and ``ObjectId``s the test creates.
    /// - Precondition: as ``current``.
    public static var identifiers: SeededIdentifiers { required.identifiers }

    /// The running test's fresh store, or `nil` outside a fresh-store scope.
    public static var currentIfAvailable: Store? { scope?.store }

    /// What ``current`` says when there is no fresh-store scope.
    static let unavailable = "ChronicleTesting: TestStore is only available in a test with the .freshStore trait "
        + "or inside withFreshStore { }. An exit test's body runs in a new process, without the test's traits: "
        + "open a store there with withFreshStore { store in … }."

    /// The scope, or an issue (which an exit test's process reports to the
    /// test, so the exit test cannot pass by crashing here) and a trap.
    private static var required: Scope {
        guard let scope else {
            Issue.record(Comment(rawValue: unavailable))
            preconditionFailure(unavailable)
        }
        return scope
    }

    /// Opens a fresh in-memory store with a deterministic clock.
    static func makeScope(name: String, objectTypes: [ObjectBase.Type]?, seed: UInt64, clock: TestClock) throws -> Scope {
        let store = try Store(configuration: .inMemory(identifier: name, objectTypes: objectTypes, clock: clock.timestamp))
        return Scope(store: store, clock: clock, identifiers: SeededIdentifiers(seed: seed, timestamp: clock.start))
    }
}
